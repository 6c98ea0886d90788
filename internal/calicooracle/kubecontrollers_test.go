package calicooracle

import (
	"fmt"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
)

// checkBesideCalicoNode returns what keeps the policy-name migrator of a kube-controllers with
// calicoversion.PolicyNameMigrator from starting (docs/calico-v3.32.md §7 row 1): it waits for the
// calico-node DaemonSet of kube-controllers' own namespace (the pod's ServiceAccount namespace), so
// kube-controllers must run in the DaemonSet's namespace, its ServiceAccount must be granted get on
// that DaemonSet, and the oracle table must replay that GET (so the replay on a real API server
// proves the grant) on exactly that DaemonSet. ok is false when the render has no kube-controllers.
func checkBesideCalicoNode(tb *Table, objs []*unstructured.Unstructured) (findings []string, ok bool) {
	var (
		kcNS, kcSA, dsNS string
		dsFound          bool
		roles            = map[string][]rbacv1.PolicyRule{} // "ClusterRole/name" or "Role/ns/name"
		bindings         []rbacv1.RoleBinding               // ClusterRoleBindings with an empty namespace
	)
	node, kc := calicoversion.Node.Workload(), calicoversion.KubeControllers.Workload()
	for _, o := range objs {
		switch {
		case o.GetKind() == kc.Kind && o.GetName() == kc.Name:
			kcNS, _, _ = unstructured.NestedString(o.Object, "metadata", "namespace")
			kcSA, _, _ = unstructured.NestedString(o.Object, "spec", "template", "spec", "serviceAccountName")
			ok = true
		case o.GetKind() == node.Kind && o.GetName() == node.Name:
			dsNS, dsFound = o.GetNamespace(), true
		case o.GetKind() == "ClusterRole" || o.GetKind() == "Role":
			var r rbacv1.Role
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &r); err != nil {
				return []string{fmt.Sprintf("decoding %s %s: %v", o.GetKind(), o.GetName(), err)}, true
			}
			key := "ClusterRole/" + r.Name
			if o.GetKind() == "Role" {
				key = "Role/" + r.Namespace + "/" + r.Name
			}
			roles[key] = r.Rules
		case o.GetKind() == "ClusterRoleBinding" || o.GetKind() == "RoleBinding":
			var b rbacv1.RoleBinding
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &b); err != nil {
				return []string{fmt.Sprintf("decoding %s %s: %v", o.GetKind(), o.GetName(), err)}, true
			}
			bindings = append(bindings, b)
		}
	}
	if !ok {
		return nil, false
	}
	if !dsFound {
		return []string{"the render has kube-controllers but no calico-node DaemonSet"}, true
	}
	if kcNS != dsNS {
		findings = append(findings, fmt.Sprintf("kube-controllers runs in namespace %q, the calico-node DaemonSet in %q: its policy-name migrator waits for a DaemonSet that is not there", kcNS, dsNS))
	}
	if kcSA == "" {
		kcSA = "default"
	}
	granted := false
	for _, b := range bindings {
		bound := slices.ContainsFunc(b.Subjects, func(s rbacv1.Subject) bool {
			return s.Kind == rbacv1.ServiceAccountKind && s.Name == kcSA && s.Namespace == kcNS
		})
		// A RoleBinding grants only in its own namespace.
		if !bound || (b.Namespace != "" && b.Namespace != dsNS) {
			continue
		}
		key := "ClusterRole/" + b.RoleRef.Name
		if b.RoleRef.Kind == "Role" {
			key = "Role/" + b.Namespace + "/" + b.RoleRef.Name
		}
		for _, r := range roles[key] {
			if slices.Contains(r.APIGroups, "apps") && slices.Contains(r.Resources, "daemonsets") && slices.Contains(r.Verbs, "get") &&
				(len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, node.Name)) {
				granted = true
			}
		}
	}
	if !granted {
		findings = append(findings, fmt.Sprintf("ServiceAccount %s/%s is not granted get on apps daemonsets %s/%s", kcNS, kcSA, dsNS, node.Name))
	}
	replayed := false
	for _, row := range tb.Requests {
		if !slices.Contains(row.Components, "kube-controllers") || !slices.Contains(row.Verbs, "get") || row.Group != "apps" ||
			!slices.Equal(row.Answers, []Answer{AnswerOK}) {
			continue
		}
		for _, tg := range row.Targets() {
			if tg.Resource == "daemonsets" && tg.Namespace == dsNS && tg.Name == node.Name {
				replayed = true
			}
		}
	}
	if !replayed {
		findings = append(findings, fmt.Sprintf("the oracle table of Calico %s has no kube-controllers row that gets apps daemonsets %s/%s and accepts only ok", tb.CalicoVersion, dsNS, node.Name))
	}
	return findings, true
}

// TestKubeControllersBesideCalicoNode: at every release of the catalogue whose kube-controllers runs
// the policy-name migrator (calicoversion.PolicyNameMigrator), in every scenario that renders
// kube-controllers, kube-controllers runs in the namespace of the calico-node DaemonSet, is granted get
// on that DaemonSet, and the oracle table of its release replays that GET (docs/calico-v3.32.md §7
// row 1; docs/calico-rbac.md).
func TestKubeControllersBesideCalicoNode(t *testing.T) {
	checked := map[string]int{}
	for _, sc := range rendertest.AtEveryRelease() {
		r := sc.Deployment().KubeControllers
		if !r.Has(calicoversion.PolicyNameMigrator) {
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			tb, err := LoadFor(r)
			if err != nil {
				t.Fatal(err)
			}
			objs, err := sc.Unstructured()
			if err != nil {
				t.Fatal(err)
			}
			findings, ok := checkBesideCalicoNode(tb, objs)
			if ok {
				checked[r.Name()]++
			}
			for _, f := range findings {
				t.Error(f)
			}
		})
	}
	var want []string
	for _, r := range calicoversion.Default().Releases() {
		if r.Has(calicoversion.PolicyNameMigrator) {
			want = append(want, r.Name())
			if checked[r.Name()] < 10 {
				t.Errorf("release %s: kube-controllers checked in %d scenarios, want every scenario that renders it", r, checked[r.Name()])
			}
		}
	}
	if len(want) == 0 {
		t.Fatal("no release of the catalogue has the policy-name migrator: this test checks nothing")
	}
}

// TestBesideCalicoNodeFindings: the check finds kube-controllers moved to another namespace, a role
// without the DaemonSet read, and a table without the row.
func TestBesideCalicoNodeFindings(t *testing.T) {
	var release calicoversion.Release
	for _, r := range calicoversion.Default().Releases() {
		if r.Has(calicoversion.PolicyNameMigrator) {
			release = r
		}
	}
	if release.IsZero() {
		t.Fatal("no release of the catalogue has the policy-name migrator")
	}
	tb, err := LoadFor(release)
	if err != nil {
		t.Fatal(err)
	}
	var sc rendertest.Scenario
	for _, s := range rendertest.Scenarios() {
		if s.Name == "default" {
			sc = s.At(release)
		}
	}
	kc := calicoversion.KubeControllers.Workload()
	tests := []struct {
		name   string
		change func(objs []*unstructured.Unstructured, tb *Table)
		want   []string
	}{
		{"unchanged", func([]*unstructured.Unstructured, *Table) {}, nil},
		{"kube-controllers in calico-system", func(objs []*unstructured.Unstructured, _ *Table) {
			for _, o := range objs {
				if o.GetKind() == kc.Kind && o.GetName() == kc.Name {
					o.SetNamespace("calico-system")
				}
			}
		}, []string{
			`kube-controllers runs in namespace "calico-system", the calico-node DaemonSet in "kube-system": its policy-name migrator waits for a DaemonSet that is not there`,
			"ServiceAccount calico-system/calico-kube-controllers is not granted get on apps daemonsets kube-system/calico-node",
		}},
		{"no daemonsets read", func(objs []*unstructured.Unstructured, _ *Table) {
			for _, o := range objs {
				if o.GetKind() != "ClusterRole" || o.GetName() != kc.Name {
					continue
				}
				rules, _, _ := unstructured.NestedSlice(o.Object, "rules")
				rules = slices.DeleteFunc(rules, func(r any) bool {
					res, _, _ := unstructured.NestedStringSlice(r.(map[string]any), "resources")
					return slices.Contains(res, "daemonsets")
				})
				_ = unstructured.SetNestedSlice(o.Object, rules, "rules")
			}
		}, []string{"ServiceAccount kube-system/calico-kube-controllers is not granted get on apps daemonsets kube-system/calico-node"}},
		{"no row", func(_ []*unstructured.Unstructured, tb *Table) {
			tb.Requests = slices.DeleteFunc(tb.Requests, func(r Request) bool { return r.Group == "apps" && r.Resource == "daemonsets" })
		}, []string{"the oracle table of Calico " + tb.CalicoVersion + " has no kube-controllers row that gets apps daemonsets kube-system/calico-node and accepts only ok"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := sc.Unstructured()
			if err != nil {
				t.Fatal(err)
			}
			table := *tb
			table.Requests = slices.Clone(tb.Requests)
			tt.change(objs, &table)
			got, ok := checkBesideCalicoNode(&table, objs)
			if !ok || !slices.Equal(got, tt.want) {
				t.Errorf("findings %q (kube-controllers found: %t), want %q", got, ok, tt.want)
			}
		})
	}
}
