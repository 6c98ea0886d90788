package calicooracle

import (
	"embed"
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

//go:embed calico-*.yaml
var tables embed.FS

// Answer is a class of API server answers Calico tolerates for a request.
type Answer string

const (
	// AnswerOK is a 2xx answer.
	AnswerOK Answer = "ok"
	// AnswerNotFound is a 404 (the object, or the resource, does not exist).
	AnswerNotFound Answer = "notFound"
	// AnswerAlreadyExists is a 409 AlreadyExists on create.
	AnswerAlreadyExists Answer = "alreadyExists"
)

// Condition names a property of a render that decides whether a request is made.
type Condition string

const (
	// CalicoIPAM: calico-node runs without USE_POD_CIDR (calico-ipam assigns pod and tunnel addresses).
	CalicoIPAM Condition = "calicoIPAM"
	// NetworkingBackend: calico-config's calico_backend is not "none".
	NetworkingBackend Condition = "networkingBackend"
)

var (
	knownVerbs      = []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	knownAnswers    = []Answer{AnswerOK, AnswerNotFound, AnswerAlreadyExists}
	knownConditions = []Condition{CalicoIPAM, NetworkingBackend}
)

// Table is what one Calico version's components ask of the API server.
type Table struct {
	// CalicoVersion is the Calico release the table was read from.
	CalicoVersion string `json:"calicoVersion"`
	// Components are Calico's components and where calico-pilot runs them.
	Components []Component `json:"components"`
	// NetworkUnavailable says which calico-node flag clears the node condition.
	NetworkUnavailable NetworkUnavailable `json:"networkUnavailable"`
	// StartupEnv is the environment calico-node's start-up terminates on.
	StartupEnv StartupEnv `json:"startupEnv"`
	// FelixEnvOutsideCRD are FELIX_ names (without the prefix) Felix reads that are not a
	// FelixConfiguration field of the same name, with the reason.
	FelixEnvOutsideCRD map[string]string `json:"felixEnvOutsideCRD"`
	// Fixtures are objects an admin creates before the replay.
	Fixtures []map[string]any `json:"fixtures"`
	// Requests are the rows, in the order Calico makes them.
	Requests []Request `json:"requests"`
}

// Component is one Calico component.
type Component struct {
	Name string `json:"name"`
	// Workload is "Kind/name" of the rendered kube-system workload that runs it; the component
	// runs only when that workload is rendered, under its pod's ServiceAccount. Under another layout
	// (InspectLayout) it is the layout's workload of the same component.
	Workload string `json:"workload,omitempty"`
	// ServiceAccount is the kube-system ServiceAccount of a component that no rendered pod runs
	// (the CNI plugin runs on the host with a token calico-node mints for it); under another layout,
	// the layout's CNI plugin ServiceAccount in its namespace.
	ServiceAccount string `json:"serviceAccount,omitempty"`
}

// NetworkUnavailable says how calico-node clears the node's NetworkUnavailable condition.
type NetworkUnavailable struct {
	// ClearedBy is the calico-node flag that clears it.
	ClearedBy string `json:"clearedBy"`
	// NotClearedBy is a flag that did in earlier releases and no longer does.
	NotClearedBy string `json:"notClearedBy"`
}

// StartupEnv is the environment calico-node -startup terminates on.
type StartupEnv struct {
	// PoolEncapsulationValues are the accepted values (case-insensitive) of PoolEncapsulationVars.
	PoolEncapsulationValues []string `json:"poolEncapsulationValues"`
	PoolEncapsulationVars   []string `json:"poolEncapsulationVars"`
	// NoDefaultPoolsConflicts are variables that must not be set with NO_DEFAULT_POOLS=true.
	NoDefaultPoolsConflicts []string `json:"noDefaultPoolsConflicts"`
}

// Request is one row: a request Calico makes, for one or several resources and verbs.
type Request struct {
	ID         string   `json:"id"`
	Components []string `json:"components"`
	// Step is the start-up step or controller that makes the request.
	Step string `json:"step"`
	// Need is what Calico needs the answer for, with the source it was read from.
	Need string `json:"need"`
	// When lists conditions of the render under which the request is made (all must hold).
	When  []Condition `json:"when,omitempty"`
	Verbs []string    `json:"verbs"`
	// Group is the API group ("" for core), Version its version (v1 when empty).
	Group   string `json:"group,omitempty"`
	Version string `json:"version,omitempty"`
	// Resource, or Resources for the same request on several resources.
	Resource    string   `json:"resource,omitempty"`
	Resources   []string `json:"resources,omitempty"`
	Subresource string   `json:"subresource,omitempty"`
	Namespace   string   `json:"namespace,omitempty"`
	// OwnNamespace: Namespace is the namespace the component itself runs in (Calico takes it from the
	// pod or from its own configuration), which the table writes as the kube-system of calico-pilot's
	// default layout; the replay makes the request in the namespace of the layout Inspected
	// (Deployment.Namespace). A row without it names a namespace Calico looks in whatever the layout.
	OwnNamespace bool   `json:"ownNamespace,omitempty"`
	Name         string `json:"name,omitempty"`
	// Names overrides Name per resource, as "name" or "namespace/name".
	Names map[string]string `json:"names,omitempty"`
	// FieldSelector is a list's or watch's field selector ("metadata.name=x": the API server
	// authorizes such a request as one for that name).
	FieldSelector string `json:"fieldSelector,omitempty"`
	LabelSelector string `json:"labelSelector,omitempty"`
	// PatchType is strategic or merge (patch only).
	PatchType string `json:"patchType,omitempty"`
	// Body is the object written (create), the fields changed (update: merged into the object
	// read first) or the patch.
	Body map[string]any `json:"body,omitempty"`
	// ReadBack: after a successful write, every field of Body must be stored unchanged.
	ReadBack bool `json:"readBack,omitempty"`
	// ExpectFields are dotted paths whose stored value Calico relies on (read requests).
	ExpectFields map[string]any `json:"expectFields,omitempty"`
	// Answers are the answer classes Calico tolerates; anything else (403 above all) fails.
	Answers []Answer `json:"answers"`
}

// Target is one resource a request is made on, with the object it names.
type Target struct {
	Resource, Namespace, Name string
}

// Targets expands the row's resources and names.
func (r *Request) Targets() []Target {
	res := r.Resources
	if r.Resource != "" {
		res = append([]string{r.Resource}, res...)
	}
	out := make([]Target, 0, len(res))
	for _, resource := range res {
		t := Target{Resource: resource, Namespace: r.Namespace, Name: r.Name}
		if n, ok := r.Names[resource]; ok {
			if ns, name, found := strings.Cut(n, "/"); found {
				t.Namespace, t.Name = ns, name
			} else {
				t.Name = n
			}
		}
		out = append(out, t)
	}
	return out
}

// APIVersion is the row's group/version as in an object's apiVersion.
func (r *Request) APIVersion() string {
	v := r.Version
	if v == "" {
		v = "v1"
	}
	if r.Group == "" {
		return v
	}
	return r.Group + "/" + v
}

// Optional reports whether only optional components make the request (calicoversion.Optional:
// calico-apiserver, goldmane, whisker), which a render has only when they are turned on.
func (r *Request) Optional() bool {
	for _, c := range r.Components {
		if !calicoversion.Component(c).IsOptional() {
			return false
		}
	}
	return len(r.Components) > 0
}

// Tolerates reports whether the answer class is one Calico tolerates.
func (r *Request) Tolerates(a Answer) bool { return slices.Contains(r.Answers, a) }

// Versions lists the Calico versions there is a table for.
func Versions() []string {
	entries, err := tables.ReadDir(".")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(e.Name(), "calico-"), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// Load returns the table of a Calico version ("v3.31.6"), checked for consistency.
func Load(version string) (*Table, error) {
	raw, err := tables.ReadFile("calico-" + version + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no oracle table for Calico %s (have %s): %w", version, strings.Join(Versions(), ", "), err)
	}
	return parse(raw)
}

// LoadFor returns the table that holds for Calico release r: the newest table of r's line that is
// not newer than r. A patch release that changes no request (Calico v3.31.7 changes no RBAC, no
// start-up step: docs/calico-oracle.md) is judged by the table of the release it was made from; a
// release older than every table of its line, or of a line without a table, has none (an error).
func LoadFor(r calicoversion.Release) (*Table, error) {
	if r.IsZero() {
		return nil, fmt.Errorf("no Calico release to load an oracle table for")
	}
	var best calicoversion.Name
	found := false
	for _, v := range Versions() {
		n, err := calicoversion.ParseName(v)
		if err != nil || !n.HasPatch {
			return nil, fmt.Errorf("oracle table %q: the file is not named after a Calico release", v)
		}
		if n.Line() != r.Version().Line() || n.Compare(r.Version()) > 0 {
			continue
		}
		if !found || n.Compare(best) > 0 {
			best, found = n, true
		}
	}
	if !found {
		return nil, fmt.Errorf("no oracle table for Calico %s: none of line %s at or before it (have %s)", r, r.Line(), strings.Join(Versions(), ", "))
	}
	t, err := Load(best.String())
	if err != nil {
		return nil, err
	}
	if t.CalicoVersion != best.String() {
		return nil, fmt.Errorf("oracle table calico-%s.yaml says calicoVersion %s", best, t.CalicoVersion)
	}
	return t, nil
}

func parse(raw []byte) (*Table, error) {
	var t Table
	if err := yaml.UnmarshalStrict(raw, &t); err != nil {
		return nil, fmt.Errorf("decoding oracle table: %w", err)
	}
	if err := t.check(); err != nil {
		return nil, fmt.Errorf("oracle table for Calico %s: %w", t.CalicoVersion, err)
	}
	return &t, nil
}

// check rejects rows the replay could not carry out as written.
func (t *Table) check() error {
	components := map[string]bool{}
	for _, c := range t.Components {
		if err := c.check(); err != nil {
			return err
		}
		components[c.Name] = true
	}
	ids := map[string]bool{}
	for i := range t.Requests {
		r := &t.Requests[i]
		where := fmt.Sprintf("request %d (%s)", i, r.ID)
		if r.ID == "" || ids[r.ID] {
			return fmt.Errorf("%s: id is empty or used twice", where)
		}
		ids[r.ID] = true
		if err := r.checkWhy(components); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if err := r.checkRequest(); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if r.OwnNamespace && r.Namespace != Namespace {
			return fmt.Errorf("%s: ownNamespace needs namespace %s (the default layout's), not %q", where, Namespace, r.Namespace)
		}
	}
	return nil
}

func (c *Component) check() error {
	if (c.Workload == "") == (c.ServiceAccount == "") {
		return fmt.Errorf("component %s: exactly one of workload and serviceAccount is needed", c.Name)
	}
	if c.Workload != "" {
		if kind, name, ok := strings.Cut(c.Workload, "/"); !ok || kind == "" || name == "" {
			return fmt.Errorf("component %s: workload %q is not Kind/name", c.Name, c.Workload)
		}
	}
	return nil
}

// checkWhy checks who makes the request, why, when and with which answers.
func (r *Request) checkWhy(components map[string]bool) error {
	if r.Step == "" || r.Need == "" {
		return fmt.Errorf("step and need are required (every row says why Calico makes it)")
	}
	if len(r.Components) == 0 {
		return fmt.Errorf("no component")
	}
	for _, c := range r.Components {
		if !components[c] {
			return fmt.Errorf("unknown component %q", c)
		}
	}
	for _, c := range r.When {
		if !slices.Contains(knownConditions, c) {
			return fmt.Errorf("unknown condition %q (known: %v)", c, knownConditions)
		}
	}
	if len(r.Answers) == 0 {
		return fmt.Errorf("no tolerated answer")
	}
	for _, a := range r.Answers {
		if !slices.Contains(knownAnswers, a) {
			return fmt.Errorf("unknown answer %q (known: %v)", a, knownAnswers)
		}
	}
	return nil
}

// checkRequest checks that every verb can be made as written on every target.
func (r *Request) checkRequest() error {
	targets := r.Targets()
	if len(targets) == 0 {
		return fmt.Errorf("no resource")
	}
	for _, v := range r.Verbs {
		if !slices.Contains(knownVerbs, v) {
			return fmt.Errorf("unknown verb %q", v)
		}
		for _, tg := range targets {
			if err := r.checkVerbOn(v, tg); err != nil {
				return err
			}
		}
		if (v == "create" || v == "update" || v == "patch") && len(r.Body) == 0 {
			return fmt.Errorf("%s needs a body", v)
		}
		if v == "patch" && r.PatchType != "strategic" && r.PatchType != "merge" {
			return fmt.Errorf("patchType must be strategic or merge")
		}
	}
	return nil
}

func (r *Request) checkVerbOn(v string, tg Target) error {
	// A review (TokenReview, SubjectAccessReview) is created without a name: its metadata must be empty.
	review := v == "create" && r.Body["kind"] != nil && strings.HasSuffix(tg.Resource, "reviews")
	if v != "list" && v != "watch" && tg.Name == "" && !review {
		return fmt.Errorf("%s on %s needs a name", v, tg.Resource)
	}
	if v == "create" && r.Subresource == "" && r.Body["kind"] == nil && kindOf(tg.Resource) == "" {
		return fmt.Errorf("create of %s needs apiVersion and kind in its body", tg.Resource)
	}
	return nil
}

// FixtureObjects returns the fixtures as unstructured objects.
func (t *Table) FixtureObjects() []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, 0, len(t.Fixtures))
	for _, f := range t.Fixtures {
		out = append(out, &unstructured.Unstructured{Object: runtime.DeepCopyJSON(f)})
	}
	return out
}
