package crds_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/calico-pilot/calico-pilot/api/projectcalico/crds"
)

// crdFacts is what a fact file of ../shared/reference/calico-crd-fields says about one CRD.
type crdFacts struct {
	Name     string
	Group    string
	Kind     string
	Plural   string
	Scope    string
	Versions []versionFacts
	// Fields are "<path> <type>[ required][ enum=...][ default=...][ minimum=...]..." lines, sorted.
	Fields []string
}

type versionFacts struct {
	Name         string
	Served       bool
	Storage      bool
	Subresources []string
}

var (
	headerRE  = regexp.MustCompile(`^# (\S+)\s+group=(\S+) kind=(\S+) plural=(\S+) scope=(\S+)`)
	versionRE = regexp.MustCompile(`^# version (\S+) served=(True|False) storage=(True|False) subresources=\[(.*)\]$`)
)

// factsDir finds ../shared/reference/calico-crd-fields relative to the repository root (the
// directory holding go.mod above this package).
func factsDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("working directory: %v", err)
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			t.Fatalf("no go.mod above %s", wd)
		}
		root = parent
	}
	dir := filepath.Join(root, "..", "shared", "reference", "calico-crd-fields")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("CRD field facts not available at %s (../shared is absent next to the repository): %v", dir, err)
	}
	return dir
}

func readFacts(t *testing.T, path string) crdFacts {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("opening facts: %v", err)
	}
	defer f.Close()
	var facts crdFacts
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
		case headerRE.MatchString(line):
			m := headerRE.FindStringSubmatch(line)
			facts.Name, facts.Group, facts.Kind, facts.Plural, facts.Scope = m[1], m[2], m[3], m[4], m[5]
		case versionRE.MatchString(line):
			m := versionRE.FindStringSubmatch(line)
			v := versionFacts{Name: m[1], Served: m[2] == "True", Storage: m[3] == "True"}
			for _, s := range strings.Split(m[4], ",") {
				if s = strings.Trim(strings.TrimSpace(s), `'"`); s != "" {
					v.Subresources = append(v.Subresources, s)
				}
			}
			facts.Versions = append(facts.Versions, v)
		case strings.HasPrefix(line, "#"):
			t.Fatalf("%s: unrecognised comment line %q", path, line)
		default:
			fieldPath, rest, ok := strings.Cut(line, " ")
			if !ok {
				t.Fatalf("%s: field line without type: %q", path, line)
			}
			facts.Fields = append(facts.Fields, fieldPath+" "+strings.TrimSpace(rest))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	if facts.Name == "" {
		t.Fatalf("%s: no header line", path)
	}
	sort.Strings(facts.Fields)
	return facts
}

// factsOf describes a generated CRD in the fact files' terms.
func factsOf(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) crdFacts {
	t.Helper()
	facts := crdFacts{
		Name:   crd.Name,
		Group:  crd.Spec.Group,
		Kind:   crd.Spec.Names.Kind,
		Plural: crd.Spec.Names.Plural,
		Scope:  string(crd.Spec.Scope),
	}
	for i, v := range crd.Spec.Versions {
		vf := versionFacts{Name: v.Name, Served: v.Served, Storage: v.Storage}
		if v.Subresources != nil {
			if v.Subresources.Status != nil {
				vf.Subresources = append(vf.Subresources, "status")
			}
			if v.Subresources.Scale != nil {
				vf.Subresources = append(vf.Subresources, "scale")
			}
		}
		facts.Versions = append(facts.Versions, vf)
		// Every fact file describes the fields of its (single) version; with several versions the
		// first one is compared, which is the one the facts were taken from.
		if i > 0 || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		root := v.Schema.OpenAPIV3Schema
		for _, name := range sortedKeys(root.Properties) {
			if name == "apiVersion" || name == "kind" || name == "metadata" {
				continue
			}
			prop := root.Properties[name]
			facts.Fields = appendFields(t, facts.Fields, name, &prop, contains(root.Required, name))
		}
	}
	sort.Strings(facts.Fields)
	return facts
}

func appendFields(t *testing.T, out []string, path string, s *apiextensionsv1.JSONSchemaProps, required bool) []string {
	t.Helper()
	out = append(out, path+" "+describe(t, s, required))
	switch {
	case s.Type == "object" && len(s.Properties) > 0:
		for _, name := range sortedKeys(s.Properties) {
			prop := s.Properties[name]
			out = appendFields(t, out, path+"."+name, &prop, contains(s.Required, name))
		}
	case s.Type == "array" && s.Items != nil && s.Items.Schema != nil && len(s.Items.Schema.Properties) > 0:
		items := s.Items.Schema
		for _, name := range sortedKeys(items.Properties) {
			prop := items.Properties[name]
			out = appendFields(t, out, path+"[]."+name, &prop, contains(items.Required, name))
		}
	}
	return out
}

// describe renders a schema node as the facts do: type, then required, enum, default, limits, pattern,
// and (beyond the field facts) nullable. minItems, x-kubernetes-* and CEL rules are not compared.
func describe(t *testing.T, s *apiextensionsv1.JSONSchemaProps, required bool) string {
	t.Helper()
	parts := []string{typeName(s, true)}
	if required {
		parts = append(parts, "required")
	}
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			vals[i] = jsonScalar(t, e.Raw)
		}
		parts = append(parts, "enum="+strings.Join(vals, ","))
	}
	if s.Default != nil {
		parts = append(parts, "default="+jsonScalar(t, s.Default.Raw))
	}
	if s.Minimum != nil {
		parts = append(parts, "minimum="+strconv.FormatFloat(*s.Minimum, 'f', -1, 64))
	}
	if s.Maximum != nil {
		parts = append(parts, "maximum="+strconv.FormatFloat(*s.Maximum, 'f', -1, 64))
	}
	if s.MaxLength != nil {
		parts = append(parts, "maxLength="+strconv.FormatInt(*s.MaxLength, 10))
	}
	if s.MinLength != nil {
		parts = append(parts, "minLength="+strconv.FormatInt(*s.MinLength, 10))
	}
	if s.MaxItems != nil {
		parts = append(parts, "maxItems="+strconv.FormatInt(*s.MaxItems, 10))
	}
	if s.Pattern != "" {
		parts = append(parts, "pattern="+s.Pattern)
	}
	// The field facts carry no nullable; the component facts (§4) and docs/calico-crds.md do.
	if s.Nullable {
		parts = append(parts, "nullable")
	}
	if s.Items != nil && s.Items.Schema != nil && s.Items.Schema.Nullable {
		parts = append(parts, "items-nullable")
	}
	return strings.Join(parts, " ")
}

// typeName is "string", "integer(int32)", "[]object", "map[string]string", "anyint-or-string", ...
// Element types of arrays and maps are written without their format, as in the facts.
func typeName(s *apiextensionsv1.JSONSchemaProps, withFormat bool) string {
	switch {
	case s.XIntOrString:
		return "anyint-or-string"
	case s.Type == "array" && s.Items != nil && s.Items.Schema != nil:
		return "[]" + typeName(s.Items.Schema, false)
	case s.Type == "object" && len(s.Properties) == 0 && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		return "map[string]" + typeName(s.AdditionalProperties.Schema, false)
	case withFormat && s.Format != "":
		return s.Type + "(" + s.Format + ")"
	default:
		return s.Type
	}
}

func jsonScalar(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decoding schema value %s: %v", raw, err)
	}
	if s, ok := v.(string); ok {
		return s
	}
	return string(raw)
}

func sortedKeys(m map[string]apiextensionsv1.JSONSchemaProps) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestGeneratedCRDsMatchFieldFacts compares every generated CRD with its fact file, corrected by the
// component facts' CRD table (§4 of docs/calico-components.md: enums the field facts lost from an
// allOf, nullable fields): names, scope, versions, subresources, and every field's path, type,
// required flag, enum, default, limits and nullability. A field that differs must be listed, with
// its reason, in docs/calico-crds.md ("Differences from Calico's CRDs"); a listed difference that no
// longer exists fails too.
func TestGeneratedCRDsMatchFieldFacts(t *testing.T) {
	dir := factsDir(t)
	factFiles, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(factFiles) != 24 {
		t.Fatalf("found %d fact files in %s, want 24", len(factFiles), dir)
	}
	corrections := readComponentCRDFacts(t, filepath.Join(dir, "..", "calico-v3.31-components.md"))
	documented := readDocumentedDifferences(t)
	generated, err := crds.CustomResourceDefinitionsFor(crds.BaseSet)
	if err != nil {
		t.Fatalf("loading embedded CRDs: %v", err)
	}
	byName := make(map[string]*apiextensionsv1.CustomResourceDefinition, len(generated))
	for _, crd := range generated {
		byName[crd.Name] = crd
	}
	wantNames := make([]string, 0, len(factFiles))
	seen := map[string]bool{}
	applied := map[string]bool{}
	for _, path := range factFiles {
		want := readFacts(t, path)
		wantNames = append(wantNames, want.Name)
		t.Run(want.Name, func(t *testing.T) {
			crd, ok := byName[want.Name]
			if !ok {
				t.Fatalf("no generated CRD named %s", want.Name)
			}
			for i, line := range want.Fields {
				fieldPath, _, _ := strings.Cut(line, " ")
				if extra, ok := corrections[want.Kind+" "+fieldPath]; ok {
					want.Fields[i] = line + extra
					applied[want.Kind+" "+fieldPath] = true
				}
			}
			got := factsOf(t, crd)
			wantFields, gotFields := fieldMap(want.Fields), fieldMap(got.Fields)
			want.Fields, got.Fields = nil, nil
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("CRD %s differs from %s (-facts +generated):\n%s", want.Name, filepath.Base(path), diff)
			}
			for _, p := range unionKeys(wantFields, gotFields) {
				if wantFields[p] == gotFields[p] {
					continue
				}
				key := want.Name + " " + p
				seen[key] = true
				if _, ok := documented[key]; !ok {
					t.Errorf("%s %s: facts %q, generated %q; fix the type or list the difference with its reason in docs/calico-crds.md",
						want.Name, p, wantFields[p], gotFields[p])
				}
			}
		})
	}
	for key := range documented {
		if !seen[key] {
			t.Errorf("docs/calico-crds.md lists a difference for %s that the generated CRDs no longer have; remove the row", key)
		}
	}
	for key := range corrections {
		if !applied[key] {
			t.Errorf("the component facts correct %s, which no field fact file has", key)
		}
	}
	sort.Strings(wantNames)
	gotNames := make([]string, 0, len(generated))
	for _, crd := range generated {
		gotNames = append(gotNames, crd.Name)
	}
	if diff := cmp.Diff(wantNames, gotNames); diff != "" {
		t.Errorf("embedded CRD names differ from the fact files (-facts +embedded):\n%s", diff)
	}
}

// fieldMap maps each field line's path to the rest of its line.
func fieldMap(lines []string) map[string]string {
	m := make(map[string]string, len(lines))
	for _, l := range lines {
		p, rest, _ := strings.Cut(l, " ")
		m[p] = rest
	}
	return m
}

func unionKeys(a, b map[string]string) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

var (
	// A row of §4's table: | Kind `path` | upstream schema | ... |
	componentCRDRowRE = regexp.MustCompile("^\\| (\\w+) `([^`]+)` \\| ([^|]+) \\|")
	enumRE            = regexp.MustCompile(`enum:\[([^\]]+)\]`)
)

// readComponentCRDFacts reads §4 of the component facts: per "Kind path", what the field facts lack
// (" enum=A,B" from an allOf, " nullable").
func readComponentCRDFacts(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("component facts not available at %s: %v", path, err)
	}
	_, section, ok := strings.Cut(string(data), "## 4. CRD facts")
	if !ok {
		t.Fatalf("%s: no section \"## 4. CRD facts\"", path)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	out := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		m := componentCRDRowRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		extra := ""
		if e := enumRE.FindStringSubmatch(m[3]); e != nil {
			extra += " enum=" + strings.ReplaceAll(e[1], " ", "")
		}
		if strings.Contains(m[3], "nullable: true") {
			extra += " nullable"
		}
		if extra != "" {
			out[m[1]+" "+m[2]] = extra
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no field corrections read from section 4", path)
	}
	return out
}

// readDocumentedDifferences reads the table of docs/calico-crds.md's "Differences from Calico's
// CRDs" section: "CRD field" -> reason.
func readDocumentedDifferences(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "calico-crds.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "## Differences from Calico's CRDs")
	if !ok {
		t.Fatal("docs/calico-crds.md has no section \"## Differences from Calico's CRDs\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	out := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		crd := strings.Trim(strings.TrimSpace(cells[1]), "`")
		field := strings.Trim(strings.TrimSpace(cells[2]), "`")
		reason := strings.TrimSpace(cells[len(cells)-2])
		if reason == "" {
			t.Errorf("docs/calico-crds.md: the difference for %s %s gives no reason", crd, field)
		}
		out[crd+" "+field] = reason
	}
	return out
}

// TestPortListItemsCarryPattern: Calico's numorstring.Port list items carry pattern "^.*" beside
// the int-or-string (§4); the field facts do not show item patterns, so this checks them directly.
func TestPortListItemsCarryPattern(t *testing.T) {
	generated, err := crds.CustomResourceDefinitionsFor(crds.BaseSet)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, crd := range generated {
		if crd.Spec.Group != "crd.projectcalico.org" {
			continue
		}
		var walk func(path string, s apiextensionsv1.JSONSchemaProps)
		walk = func(path string, s apiextensionsv1.JSONSchemaProps) {
			for name, p := range s.Properties {
				walk(path+"."+name, p)
			}
			if s.Items == nil || s.Items.Schema == nil {
				return
			}
			items := *s.Items.Schema
			if items.XIntOrString && (strings.HasSuffix(path, ".ports") || strings.HasSuffix(path, ".notPorts") || strings.HasSuffix(path, ".kubeNodePortRanges")) {
				checked++
				if items.Pattern != "^.*" {
					t.Errorf("%s %s: items pattern %q, Calico's is ^.*", crd.Name, path, items.Pattern)
				}
			}
			walk(path+"[]", items)
		}
		walk("", *crd.Spec.Versions[0].Schema.OpenAPIV3Schema)
	}
	// kubeNodePortRanges, and ports/notPorts of source/destination of ingress/egress in four policy kinds.
	if checked != 1+4*8 {
		t.Errorf("checked %d port lists, want 33", checked)
	}
}
