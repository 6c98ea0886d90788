package lint

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	projectcalicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/decode"
)

// Kinds lint checks, all of apiVersion crd.projectcalico.org/v1.
const (
	kindNetworkPolicy             = "NetworkPolicy"
	kindGlobalNetworkPolicy       = "GlobalNetworkPolicy"
	kindStagedNetworkPolicy       = "StagedNetworkPolicy"
	kindStagedGlobalNetworkPolicy = "StagedGlobalNetworkPolicy"
	kindNetworkSet                = "NetworkSet"
	kindGlobalNetworkSet          = "GlobalNetworkSet"
)

var checkedKinds = []string{kindNetworkPolicy, kindGlobalNetworkPolicy, kindStagedNetworkPolicy,
	kindStagedGlobalNetworkPolicy, kindNetworkSet, kindGlobalNetworkSet}

// calicoAPIServerGroup is the API group of the Calico API server, which shoots do not run.
const calicoAPIServerGroup = "projectcalico.org/"

// object is one linted object: a document, or an item of a List document.
type object struct {
	doc int
	// root is nil for a document, items[i] for a List item.
	root *field.Path
	loc  *locator
	// list marks the List document itself (its findings are about the List); listLen its items.
	list    bool
	listLen int

	kind, name, namespace string
	policy                *policy
	set                   *netset

	findings []finding
}

func (o *object) path(first string, rest ...string) *field.Path {
	if o.root == nil {
		return field.NewPath(first, rest...)
	}
	return o.root.Child(first, rest...)
}

func (o *object) add(p *field.Path, sev Severity, rule, format string, args ...any) {
	o.findings = append(o.findings, finding{path: p, severity: sev, rule: rule, detail: fmt.Sprintf(format, args...)})
}

// locate resolves a finding's path to a line and column.
func (o *object) locate(f finding) Finding {
	out := Finding{Field: f.path.String(), Severity: f.severity, Rule: f.rule, Detail: f.detail}
	if f.path.String() == "<document>" {
		out.Field = ""
	}
	var pos position
	var ok bool
	if f.valueColumn > 0 {
		pos, ok = o.loc.columnInValue(out.Field, f.valueColumn)
	} else {
		var v valueAt
		v, ok = o.loc.find(out.Field)
		pos = v.position
	}
	if ok {
		out.Line, out.Column = pos.line, pos.column
	}
	return out
}

// readDocument turns a document into the objects to check: itself, or the items of a List.
func readDocument(doc decode.Document, loc *locator) []*object {
	if doc.Kind != "List" && !strings.HasSuffix(doc.Kind, "List") {
		return []*object{readObject(doc, nil, loc)}
	}
	listObj := &object{doc: doc.Index, loc: loc, list: true, kind: doc.Kind}
	m := raw(doc.JSON)
	items, ok := m["items"].([]any)
	switch {
	case m["items"] == nil:
		listObj.add(field.NewPath("items"), SeverityError, "decode", "Required value: a List needs items")
		return []*object{listObj}
	case !ok:
		listObj.add(field.NewPath("items"), SeverityError, "decode", "must be a list of objects")
		return []*object{listObj}
	}
	listObj.listLen = len(items)
	out := []*object{listObj}
	for i, item := range items {
		itemPath := field.NewPath("items").Index(i)
		js, err := json.Marshal(item)
		itemDocs, splitErr := decode.SplitDocuments(js)
		if err != nil || splitErr != nil || len(itemDocs) != 1 {
			bad := &object{doc: doc.Index, root: itemPath, loc: loc}
			bad.add(itemPath, SeverityError, "decode", "must be an object with apiVersion and kind")
			out = append(out, bad)
			continue
		}
		itemDoc := itemDocs[0]
		itemDoc.Index = doc.Index
		out = append(out, readObject(itemDoc, itemPath, loc))
	}
	return out
}

// readObject decodes one object of a checked kind strictly into our Go types.
func readObject(doc decode.Document, root *field.Path, loc *locator) *object {
	o := &object{doc: doc.Index, root: root, loc: loc, kind: doc.Kind, name: doc.Name, namespace: doc.Namespace}
	if !o.checkedKind(doc) {
		return o
	}
	specRaw, _ := raw(doc.JSON)["spec"].(map[string]any)
	if errs := o.decodeKind(doc, root, specRaw); len(errs) > 0 {
		o.findings = append(o.findings, fromFieldErrors(errs)...)
		o.policy, o.set = nil, nil
	}
	if o.policy != nil {
		o.policy.specPresent = specRaw != nil
	}
	return o
}

// checkedKind reports whether lint checks the document's kind and apiVersion; when it does not, the
// object says why (no kind, the Calico API server's group, another kind or version).
func (o *object) checkedKind(doc decode.Document) bool {
	wantAPI := projectcalicov1.SchemeGroupVersion.String()
	known := slices.Contains(checkedKinds, doc.Kind)
	switch {
	case doc.Kind == "":
		o.add(o.path("kind"), SeverityError, "decode", "Required value: every document needs a kind (%s)", strings.Join(checkedKinds, ", "))
		return false
	case known && strings.HasPrefix(doc.APIVersion, calicoAPIServerGroup):
		o.add(o.path("apiVersion"), SeverityError, "api-version",
			"%s is served by the Calico API server, which shoot clusters do not run: use apiVersion %s (the CRD API, which does no defaulting, so spec.types, spec.selector and spec.order must be written out)",
			doc.APIVersion, wantAPI)
		return false
	case !known || doc.APIVersion != wantAPI:
		what := doc.APIVersion + " " + doc.Kind
		o.add(o.path("kind"), SeverityWarning, "not-checked", "%s is not checked; lint checks %s of %s", what, strings.Join(checkedKinds, ", "), wantAPI)
		return false
	}
	return true
}

// decodeKind decodes a document of a checked kind strictly into the object's policy or network set.
func (o *object) decodeKind(doc decode.Document, root *field.Path, specRaw map[string]any) field.ErrorList {
	gvk := projectcalicov1.SchemeGroupVersion.WithKind(doc.Kind)
	var errs field.ErrorList
	switch doc.Kind {
	case kindGlobalNetworkPolicy:
		var obj projectcalicov1.GlobalNetworkPolicy
		if errs = decode.Object(doc.JSON, root, gvk, &obj); len(errs) == 0 {
			o.policy = &policy{global: true, spec: obj.Spec}
		}
	case kindStagedGlobalNetworkPolicy:
		var obj projectcalicov1.StagedGlobalNetworkPolicy
		if errs = decode.Object(doc.JSON, root, gvk, &obj); len(errs) == 0 {
			o.policy = &policy{global: true, staged: true, stagedAction: obj.Spec.StagedAction, spec: obj.Spec.GlobalNetworkPolicySpec}
		}
	case kindNetworkPolicy, kindStagedNetworkPolicy:
		errs = o.decodeNamespacedPolicy(doc, root, gvk, specRaw)
	case kindGlobalNetworkSet:
		var obj projectcalicov1.GlobalNetworkSet
		if errs = decode.Object(doc.JSON, root, gvk, &obj); len(errs) == 0 {
			o.set = &netset{global: true, labels: obj.Labels, nets: obj.Spec.Nets}
		}
	case kindNetworkSet:
		var obj projectcalicov1.NetworkSet
		if errs = decode.Object(doc.JSON, root, gvk, &obj); len(errs) == 0 {
			o.set = &netset{labels: obj.Labels, nets: obj.Spec.Nets}
		}
	}
	return errs
}

// decodeNamespacedPolicy decodes a (staged) NetworkPolicy into the GlobalNetworkPolicySpec shape
// the checks use, after reporting the fields only a GlobalNetworkPolicy has.
func (o *object) decodeNamespacedPolicy(doc decode.Document, root *field.Path, gvk schema.GroupVersionKind, specRaw map[string]any) field.ErrorList {
	if errs := o.globalOnlyFields(specRaw); len(errs) > 0 {
		return errs
	}
	o.policy = &policy{}
	if doc.Kind == kindNetworkPolicy {
		var obj projectcalicov1.NetworkPolicy
		errs := decode.Object(doc.JSON, root, gvk, &obj)
		if len(errs) == 0 {
			o.policy.spec = globalSpec(obj.Spec)
		}
		return errs
	}
	var obj projectcalicov1.StagedNetworkPolicy
	errs := decode.Object(doc.JSON, root, gvk, &obj)
	if len(errs) == 0 {
		o.policy.staged, o.policy.stagedAction = true, obj.Spec.StagedAction
		o.policy.spec = globalSpec(obj.Spec.NetworkPolicySpec)
	}
	return errs
}

// globalOnlyFields reports the spec fields that exist on GlobalNetworkPolicy only, with the reason,
// instead of the decoder's generic "unknown field".
func (o *object) globalOnlyFields(spec map[string]any) field.ErrorList {
	var errs field.ErrorList
	for _, f := range []struct{ name, why string }{
		{"namespaceSelector", "a namespaced policy applies to endpoints of its own namespace only; to select endpoints by their namespace's labels, use a GlobalNetworkPolicy"},
		{"doNotTrack", "untracked policies apply to host endpoints, which only a GlobalNetworkPolicy selects"},
		{"preDNAT", "pre-DNAT policies apply to host endpoints, which only a GlobalNetworkPolicy selects"},
		{"applyOnForward", "forwarded traffic is policed on host endpoints, which only a GlobalNetworkPolicy selects"},
	} {
		if _, ok := spec[f.name]; ok {
			errs = append(errs, field.Forbidden(o.path("spec", f.name), fmt.Sprintf("exists on GlobalNetworkPolicy only, not in the %s schema: %s", o.kind, f.why)))
		}
	}
	return errs
}

// globalSpec copies a namespaced policy's spec into the GlobalNetworkPolicySpec shape the checks use.
func globalSpec(s projectcalicov1.NetworkPolicySpec) projectcalicov1.GlobalNetworkPolicySpec {
	return projectcalicov1.GlobalNetworkPolicySpec{
		Tier: s.Tier, Order: s.Order, Ingress: s.Ingress, Egress: s.Egress, Selector: s.Selector,
		Types: s.Types, ServiceAccountSelector: s.ServiceAccountSelector, PerformanceHints: s.PerformanceHints,
	}
}
