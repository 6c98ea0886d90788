package crds_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/calico-pilot/calico-pilot/api/projectcalico/crds"
)

// deltaRowRE is a row of §2.2 of docs/calico-v3.32.md: | crds | added | removed | changed | fields |.
var deltaRowRE = regexp.MustCompile(`^\| ([a-z /,]+) \| (\d+)[^|]*\| (\d+) \| [^|]+\| [^|]+\|$`)

// readDeltaFieldCounts reads §2.2 of the delta facts: per CRD plural, how many fields v3.32.1 adds
// and removes.
func readDeltaFieldCounts(t *testing.T) map[string][2]int {
	t.Helper()
	path := filepath.Join(factsDir(t), "..", "calico-v3.32-delta.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("delta facts not available at %s: %v", path, err)
	}
	_, section, ok := strings.Cut(string(data), "### 2.2 ")
	if !ok {
		t.Fatalf("%s: no section 2.2", path)
	}
	section, _, _ = strings.Cut(section, "\n### ")
	out := map[string][2]int{}
	for _, line := range strings.Split(section, "\n") {
		m := deltaRowRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		added, _ := strconv.Atoi(m[2])
		removed, _ := strconv.Atoi(m[3])
		for _, name := range strings.FieldsFunc(m[1], func(r rune) bool { return r == '/' || r == ',' || r == ' ' }) {
			out[name] = [2]int{added, removed}
		}
	}
	if len(out) < 20 {
		t.Fatalf("%s: read %d CRDs from section 2.2, want the 22 crd.projectcalico.org CRDs", path, len(out))
	}
	return out
}

func byName(t *testing.T, v string) map[string]*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	defs, err := crds.CustomResourceDefinitionsFor(v)
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[string]*apiextensionsv1.CustomResourceDefinition, len(defs))
	for _, d := range defs {
		m[d.Name] = d
	}
	return m
}

// TestV3_32FieldCountsMatchDelta compares, per crd.projectcalico.org CRD, the fields the v3.32 set
// adds to and removes from the v3.31 set with the counts of the delta facts' §2.2 table.
func TestV3_32FieldCountsMatchDelta(t *testing.T) {
	counts := readDeltaFieldCounts(t)
	old, cur := byName(t, "v3.31"), byName(t, "v3.32")
	seen := 0
	for name, crd := range cur {
		plural, group, _ := strings.Cut(name, ".")
		if group != "crd.projectcalico.org" {
			continue
		}
		want, ok := counts[plural]
		if !ok {
			t.Errorf("%s: no row in the delta facts' §2.2", plural)
			continue
		}
		seen++
		oldFields, newFields := fieldMap(factsOf(t, old[name]).Fields), fieldMap(factsOf(t, crd).Fields)
		kept := keptFields(crd)
		var added, removed []string
		for _, p := range unionKeys(oldFields, newFields) {
			_, inOld := oldFields[p]
			_, inNew := newFields[p]
			switch {
			case inNew && !inOld:
				added = append(added, p)
			case inOld && !inNew:
				t.Errorf("%s: field %s left the schema: calico-pilot keeps the fields Calico drops, so that stored values are never pruned", plural, p)
			case inOld && kept(p):
				// Dropped by Calico v3.32, kept by calico-pilot (marked): it counts as removed.
				removed = append(removed, p)
			}
		}
		if len(added) != want[0] || len(removed) != want[1] {
			t.Errorf("%s: v3.32 adds %d fields %v and removes %d %v; the delta facts say %d added, %d removed",
				plural, len(added), added, len(removed), removed, want[0], want[1])
		}
	}
	if seen != 22 {
		t.Errorf("compared %d crd.projectcalico.org CRDs, want 22", seen)
	}
}

// TestV3_32SetAndFacts: the set (docs/calico-v3.32.md §2.1) and the changes of §2.3 a component or calico-pilot
// depends on, checked field by field.
func TestV3_32SetAndFacts(t *testing.T) {
	old, cur := byName(t, "v3.31"), byName(t, "v3.32")
	// §2.1: no crd.projectcalico.org CRD added or removed, ClusterNetworkPolicy new; ANP/BANP kept
	// (never deleted, docs/calico-crds.md).
	for name := range old {
		if cur[name] == nil {
			t.Errorf("v3.32 set lacks %s: CRDs are never deleted", name)
		}
	}
	if len(cur) != len(old)+1 {
		t.Errorf("v3.32 set has %d CRDs, want v3.31's %d + ClusterNetworkPolicy", len(cur), len(old))
	}
	cnp := cur["clusternetworkpolicies.policy.networking.k8s.io"]
	if cnp == nil {
		t.Fatal("v3.32 set lacks clusternetworkpolicies.policy.networking.k8s.io")
	}
	if got := cnp.Annotations["policy.networking.k8s.io/bundle-version"] + " " + cnp.Annotations["policy.networking.k8s.io/channel"]; got != "v0.2.0 standard" {
		t.Errorf("ClusterNetworkPolicy bundle %q, want v0.2.0 standard", got)
	}
	if v := cnp.Spec.Versions; len(v) != 1 || v[0].Name != "v1alpha2" || !v[0].Storage || v[0].Subresources == nil || v[0].Subresources.Status == nil || !slices.Contains(cnp.Spec.Names.ShortNames, "cnp") {
		t.Errorf("ClusterNetworkPolicy: versions %+v short names %v, want v1alpha2 storage with status, short name cnp", v, cnp.Spec.Names.ShortNames)
	}
	// Storage never changes (a downgrade across one would lose every object: the catalogue's crdStorage).
	for name, crd := range cur {
		if o := old[name]; o != nil && storageOf(o) != storageOf(crd) {
			t.Errorf("%s: storage %s in v3.31, %s in v3.32", name, storageOf(o), storageOf(crd))
		}
	}
	// §0 row 4 / §2.1: the status subresource, the only subresource change.
	for name, crd := range cur {
		o := old[name]
		if o == nil || !strings.HasSuffix(name, ".crd.projectcalico.org") {
			continue
		}
		hadStatus, hasStatus := hasStatusSubresource(o), hasStatusSubresource(crd)
		want := hadStatus || name == "kubecontrollersconfigurations.crd.projectcalico.org"
		if hasStatus != want {
			t.Errorf("%s: status subresource %v in v3.32, want %v", name, hasStatus, want)
		}
	}
	fields := func(plural string) map[string]string {
		return fieldMap(factsOf(t, cur[plural+".crd.projectcalico.org"]).Fields)
	}
	for _, tt := range []struct{ crd, path, want string }{
		{"kubecontrollersconfigurations", "spec.controllers.policyMigration.enabled", "string enum=Disabled,Enabled default=Enabled"},
		{"kubecontrollersconfigurations", "status.runningConfig.controllers.policyMigration.enabled", "string enum=Disabled,Enabled default=Enabled"},
		{"ippools", "spec.cidr", "string(cidr) required maxLength=48"},
		{"ippools", "spec.blockSize", "integer minimum=0 maximum=128"},
		{"ippools", "spec.ipipMode", "string enum=Never,Always,CrossSubnet"},
		{"ippools", "spec.vxlanMode", "string enum=Never,Always,CrossSubnet"},
		{"ippools", "spec.allowedUses", "[]string maxItems=10"},
		{"ippools", "spec.assignmentMode", "string enum=Automatic,Manual default=Automatic"},
		// Dropped by Calico v3.32, kept (marked) so that stored values are never pruned.
		{"ippools", "spec.ipip", "object"},
		{"ippools", "spec.nat-outgoing", "boolean"},
		{"felixconfigurations", "spec.nftablesMode", "string enum=Disabled,Enabled,Auto default=Auto"},
		{"felixconfigurations", "spec.bpfRedirectToPeer", "string enum=Enabled,Disabled default=Enabled"},
		{"felixconfigurations", "spec.iptablesBackend", "string enum=Legacy,NFT,Auto pattern=^(?i)(Auto|Legacy|NFT)?$"},
		{"felixconfigurations", "spec.iptablesLockFilePath", "string"},
		{"felixconfigurations", "spec.nodeSelector", "string maxLength=1024"},
		{"bgpconfigurations", "spec.programClusterRoutes", "string enum=Enabled,Disabled"},
		{"bgppeers", "spec.keepaliveTime", "string"},
		{"ipamconfigs", "spec.kubeVirtVMAddressPersistence", "string enum=Enabled,Disabled"},
		{"tiers", "spec", "object required"},
		{"tiers", "spec.defaultAction", "string default=Deny"},
		{"globalnetworkpolicies", "spec.tier", "string default=default"},
		{"networkpolicies", "spec.ingress[].action", "string required enum=Allow,Deny,Log,Pass"},
		{"stagednetworkpolicies", "spec.stagedAction", "string enum=Set,Delete,Learn,Ignore default=Set"},
	} {
		if got := fields(tt.crd)[tt.path]; got != tt.want {
			t.Errorf("%s %s: %q, want %q (docs/calico-v3.32.md §2.3)", tt.crd, tt.path, got, tt.want)
		}
	}
	// The CEL rules the envtest suite (test/integration/calicocrds) exercises are there.
	for _, tt := range []struct{ crd, path, rule string }{
		{"ippools", "spec.cidr", "self == oldSelf"},
		{"ippools", "spec.blockSize", "self == oldSelf"},
		{"felixconfigurations", "spec", "!(has(self.routeTableRange) && has(self.routeTableRanges))"},
	} {
		s := schemaAt(t, cur[tt.crd+".crd.projectcalico.org"], tt.path)
		var rules []string
		for _, r := range s.XValidations {
			rules = append(rules, r.Rule)
		}
		if !slices.Contains(rules, tt.rule) {
			t.Errorf("%s %s: CEL rules %v, want %q", tt.crd, tt.path, rules, tt.rule)
		}
	}
}

func TestV3_32FilesMatchParsedCRDs(t *testing.T) {
	parsed, err := crds.CustomResourceDefinitionsFor("v3.32")
	if err != nil {
		t.Fatal(err)
	}
	files, err := crds.FilesFor("v3.32")
	if err != nil {
		t.Fatal(err)
	}
	var a, b []string
	for i := range parsed {
		a = append(a, parsed[i].Name)
	}
	for i := range files {
		b = append(b, files[i].Name)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("FilesFor and CustomResourceDefinitionsFor differ (-crds +files):\n%s", diff)
	}
	if z, err := crds.CustomResourceDefinitionsFor("v3.30"); err == nil {
		t.Errorf("an unknown set: %d CRDs, no error", len(z))
	}
}

func storageOf(crd *apiextensionsv1.CustomResourceDefinition) string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return crd.Spec.Group + "/" + v.Name
		}
	}
	return ""
}

func hasStatusSubresource(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, v := range crd.Spec.Versions {
		if v.Subresources != nil && v.Subresources.Status != nil {
			return true
		}
	}
	return false
}

// schemaAt follows a dot path from the top of the first version's schema.
func schemaAt(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, path string) apiextensionsv1.JSONSchemaProps {
	t.Helper()
	s := *crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	for _, step := range strings.Split(path, ".") {
		next, ok := s.Properties[step]
		if !ok {
			t.Fatalf("%s: no field %s", crd.Name, path)
		}
		s = next
	}
	return s
}

// keptMarker starts the description of a field Calico v3.32 dropped from its CRD and calico-pilot
// keeps (hack/crdline/v3.32.yaml): a field that leaves a schema is pruned from stored objects.
const keptMarker = "Removed from Calico's v3.32 CRD"

// keptFields reports whether a flattened field path (as factsOf writes it) is, or lies under, a field
// marked with keptMarker in crd's schema.
func keptFields(crd *apiextensionsv1.CustomResourceDefinition) func(string) bool {
	marked := map[string]bool{}
	var walk func(path string, s *apiextensionsv1.JSONSchemaProps)
	walk = func(path string, s *apiextensionsv1.JSONSchemaProps) {
		if strings.HasPrefix(s.Description, keptMarker) {
			marked[path] = true
		}
		for name, prop := range s.Properties {
			p := name
			if path != "" {
				p = path + "." + name
			}
			walk(p, &prop)
		}
		if s.Items != nil && s.Items.Schema != nil {
			for name, prop := range s.Items.Schema.Properties {
				walk(path+"[]."+name, &prop)
			}
		}
	}
	for _, v := range crd.Spec.Versions {
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			walk("", v.Schema.OpenAPIV3Schema)
		}
	}
	return func(p string) bool {
		for q := range marked {
			if p == q || strings.HasPrefix(p, q+".") || strings.HasPrefix(p, q+"[]") {
				return true
			}
		}
		return false
	}
}
