package calicofacts_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calico-pilot/calico-pilot/internal/calicofacts"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion/calicoversiontest"
)

func rel(t *testing.T, name string) calicoversion.Release { return calicoversiontest.Default(t, name) }

func ids(facts []calicofacts.Fact) []string {
	var out []string
	for _, f := range facts {
		out = append(out, f.ID)
	}
	return out
}

func TestFor(t *testing.T) {
	v31, v32 := rel(t, "v3.31.6"), rel(t, "v3.32.1")
	up, down := calicofacts.For(v31, v32), calicofacts.For(v32, v31)
	for _, f := range up {
		if f.Direction == calicofacts.Down {
			t.Errorf("upgrade lists downgrade fact %s", f.ID)
		}
	}
	for _, f := range down {
		if f.Direction == calicofacts.Up {
			t.Errorf("downgrade lists upgrade fact %s", f.ID)
		}
	}
	if !contains(ids(up), "up.anp-banp-not-enforced") || !contains(ids(up), "kubernetes-range") || contains(ids(up), "down.policy-tiers") {
		t.Errorf("upgrade facts %v", ids(up))
	}
	if !contains(ids(down), "down.policy-tiers") || !contains(ids(down), "kubernetes-range") {
		t.Errorf("downgrade facts %v", ids(down))
	}
	if got := calicofacts.For(v32, v32); len(got) != 0 {
		t.Errorf("a steady shoot has facts %v", ids(got))
	}
	if got := calicofacts.For(calicoversion.Release{}, v32); len(got) != 0 {
		t.Errorf("an unknown line has facts %v", ids(got))
	}
	// A patch move has no facts (nothing stored changes).
	if got := calicofacts.For(v31, rel(t, "v3.31.7")); len(got) != 0 {
		t.Errorf("a patch move has facts %v", ids(got))
	}
	// A span across several lines gets the facts of each step; a step that lies outside gets none.
	cat := calicoversiontest.WithLines(t, calicoversiontest.V3_33)
	v33 := calicoversiontest.Release(t, cat, "v3.33.0")
	v31, v32 = calicoversiontest.Release(t, cat, "v3.31.6"), calicoversiontest.Release(t, cat, "v3.32.1")
	if diff := cmp.Diff(ids(down), ids(calicofacts.For(v33, v31))); diff != "" {
		t.Errorf("v3.33 -> v3.31 lacks the v3.32 -> v3.31 facts (-want +got):\n%s", diff)
	}
	// Only the fact of every move between lines (the Kubernetes range, judged with the catalogue's
	// ranges) applies to a pair of lines the facts do not cover.
	if got := ids(calicofacts.For(v33, v32)); len(got) != 1 || got[0] != "kubernetes-range" {
		t.Errorf("v3.33 -> v3.32 has the v3.32 -> v3.31 facts %v", got)
	}
}

func contains(s []string, x string) bool {
	for _, e := range s {
		if e == x {
			return true
		}
	}
	return false
}

// TestFactsWellFormed: unique IDs, every field a reader needs, a direction prefix that matches.
func TestFactsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range calicofacts.All() {
		if seen[f.ID] {
			t.Errorf("fact %s listed twice", f.ID)
		}
		seen[f.ID] = true
		if f.Title == "" || f.Happens == "" || f.Source == "" || f.Severity == "" {
			t.Errorf("fact %s lacks title, happens, source or severity", f.ID)
		}
		if f.Severity != calicofacts.Info && f.Action == "" {
			t.Errorf("fact %s (%s) says nothing to do", f.ID, f.Severity)
		}
		if f.Severity == calicofacts.Blocker && f.Live == nil && !f.Kubernetes {
			t.Errorf("blocker %s has no check: it would block every move", f.ID)
		}
		if prefix, _, _ := strings.Cut(f.ID, "."); (prefix == "up" || prefix == "down") && string(f.Direction) != prefix {
			t.Errorf("fact %s has direction %s", f.ID, f.Direction)
		}
	}
}

// TestFactsDocumented keeps docs/calico-downgrade.md in step with the data.
func TestFactsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/calico-downgrade.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range calicofacts.All() {
		row := "| `" + f.ID + "` | " + string(f.Direction) + " | " + string(f.Severity) + " |"
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/calico-downgrade.md has no row starting %q", row)
		}
	}
}

func obj(apiVersion, kind, ns, name string, spec map[string]any) map[string]any {
	md := map[string]any{"name": name}
	if ns != "" {
		md["namespace"] = ns
	}
	return map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": md, "spec": spec}
}

func TestEvaluate(t *testing.T) {
	np := calicofacts.Kind{APIVersion: "crd.projectcalico.org/v1", Kind: "NetworkPolicy"}
	gnp := calicofacts.Kind{APIVersion: "crd.projectcalico.org/v1", Kind: "GlobalNetworkPolicy"}
	objects := calicofacts.Objects{
		np: {
			obj("crd.projectcalico.org/v1", "NetworkPolicy", "web", "default.allow-web", map[string]any{"tier": "default"}),
			obj("crd.projectcalico.org/v1", "NetworkPolicy", "web", "allow-dns", map[string]any{"tier": "security"}),
			obj("crd.projectcalico.org/v1", "NetworkPolicy", "web", "security.allow-ntp", map[string]any{"tier": "security"}),
			obj("crd.projectcalico.org/v1", "NetworkPolicy", "web", "bare", map[string]any{}),
		},
		gnp: {obj("crd.projectcalico.org/v1", "GlobalNetworkPolicy", "", "a.b", map[string]any{"tier": "default"})},
		{APIVersion: "policy.networking.k8s.io/v1alpha2", Kind: "ClusterNetworkPolicy"}: {obj("policy.networking.k8s.io/v1alpha2", "ClusterNetworkPolicy", "", "deny-all", nil)},
		{APIVersion: "crd.projectcalico.org/v1", Kind: "BGPFilter"}: {
			obj("crd.projectcalico.org/v1", "BGPFilter", "", "old", map[string]any{"exportV4": []any{map[string]any{"action": "Reject", "cidr": "10.0.0.0/8", "matchOperator": "In"}}}),
			obj("crd.projectcalico.org/v1", "BGPFilter", "", "new", map[string]any{"importV6": []any{map[string]any{"action": "Reject"}, map[string]any{"action": "Reject", "communities": map[string]any{"values": []any{"65000:1"}}}}}),
		},
		{APIVersion: "crd.projectcalico.org/v1", Kind: "FelixConfiguration"}: {
			obj("crd.projectcalico.org/v1", "FelixConfiguration", "", "default", map[string]any{"nftablesMode": "Auto"}),
		},
		{APIVersion: "crd.projectcalico.org/v1", Kind: "IPAMBlock"}: {
			obj("crd.projectcalico.org/v1", "IPAMBlock", "", "100-96-0-0-26", map[string]any{"attributes": []any{map[string]any{"handle_id": "x"}, map[string]any{"alternateOwnerAttrs": map[string]any{"pod": "virt-launcher-b"}}}}),
		},
	}
	got := map[string]calicofacts.Finding{}
	for _, f := range calicofacts.Evaluate(calicofacts.For(rel(t, "v3.32.1"), rel(t, "v3.31.6")), rel(t, "v3.31.6"), "1.36.1", objects) {
		got[f.ID] = f
	}
	for id, want := range map[string]struct {
		status  calicofacts.Status
		objects []string
	}{
		"kubernetes-range": {status: calicofacts.StatusFound},
		"down.policy-tiers": {status: calicofacts.StatusFound, objects: []string{
			"GlobalNetworkPolicy.crd.projectcalico.org a.b: in tier default, v3.31 runs it in tier a",
			"NetworkPolicy.crd.projectcalico.org web/allow-dns: in tier security, v3.31 runs it in tier default",
		}},
		"down.policy-names":           {status: calicofacts.StatusFound, objects: []string{"NetworkPolicy.crd.projectcalico.org web/bare: v3.31 clients look for default.bare"}},
		"down.cluster-network-policy": {status: calicofacts.StatusFound, objects: []string{"ClusterNetworkPolicy.policy.networking.k8s.io deny-all: not enforced by v3.31"}},
		"down.bgpfilter-fields":       {status: calicofacts.StatusFound, objects: []string{"BGPFilter.crd.projectcalico.org new: spec.importV6[1].communities"}},
		"down.kubevirt-ipam":          {status: calicofacts.StatusFound, objects: []string{"IPAMBlock.crd.projectcalico.org 100-96-0-0-26: spec.attributes[1].alternateOwnerAttrs is set"}},
		"down.felix-node-selector":    {status: calicofacts.StatusClear},
		"down.bgppeer-keepalive":      {status: calicofacts.StatusClear},
		"down.native-v3-crds":         {status: calicofacts.StatusClear},
		"down.nftables":               {status: calicofacts.StatusAlways},
	} {
		f, ok := got[id]
		if !ok {
			t.Errorf("no finding %s", id)
			continue
		}
		if f.Status != want.status || !cmp.Equal(f.Objects, want.objects) {
			t.Errorf("%s: %s %q, want %s %q", id, f.Status, f.Objects, want.status, want.objects)
		}
		if f.Blocks() != (f.Severity == calicofacts.Blocker && want.status == calicofacts.StatusFound) {
			t.Errorf("%s: Blocks %t", id, f.Blocks())
		}
	}
	if d := got["kubernetes-range"].Detail; d != "Calico v3.31.6 supports Kubernetes 1.32-1.35, the shoot runs 1.36.1" {
		t.Errorf("kubernetes detail %q", d)
	}
	// Without the shoot, the live checks are not run and block nothing.
	for _, f := range calicofacts.Evaluate(calicofacts.For(rel(t, "v3.31.6"), rel(t, "v3.32.1")), rel(t, "v3.32.1"), "", nil) {
		if f.Blocks() {
			t.Errorf("%s blocks without a check", f.ID)
		}
		if (f.Live != nil || f.Kubernetes) != (f.Status == calicofacts.StatusNotChecked) {
			t.Errorf("%s: status %s", f.ID, f.Status)
		}
	}
}

func TestObjectsCapped(t *testing.T) {
	anp := calicofacts.Kind{APIVersion: "policy.networking.k8s.io/v1alpha1", Kind: "AdminNetworkPolicy"}
	var items []map[string]any
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		items = append(items, obj(anp.APIVersion, anp.Kind, "", n, nil))
	}
	for _, f := range calicofacts.Evaluate(calicofacts.For(rel(t, "v3.31.6"), rel(t, "v3.32.1")), rel(t, "v3.32.1"), "1.34.0", calicofacts.Objects{anp: items}) {
		if f.ID != "up.anp-banp-not-enforced" {
			continue
		}
		if f.Count != 12 || len(f.Objects) != calicofacts.MaxObjects || !f.Blocks() {
			t.Errorf("count %d, %d listed, blocks %t", f.Count, len(f.Objects), f.Blocks())
		}
		return
	}
	t.Error("no ANP finding")
}

func TestWarnings(t *testing.T) {
	w := calicofacts.Warnings(rel(t, "v3.32.1"), rel(t, "v3.31.6"), "spec.networking.providerConfig.calicoVersion")
	if len(w) < 2 || w[0] != "spec.networking.providerConfig.calicoVersion: v3.32.1 -> v3.31.6 is a Calico downgrade; what it does and what to check first: "+
		"docs/calico-downgrade.md, calico-pilot plan --target-version v3.31.6 --kubeconfig SHOOT (live checks)" {
		t.Fatalf("warnings %q", w)
	}
	joined := strings.Join(w, "\n")
	for _, id := range []string{"[down.policy-tiers]", "[down.nftables]", "[down.cluster-network-policy]"} {
		if !strings.Contains(joined, id) {
			t.Errorf("no warning names %s", id)
		}
	}
	if strings.Contains(joined, "[down.order]") {
		t.Error("a fact calico-pilot handles alone (Info) is warned about")
	}
	if strings.Contains(joined, "[kubernetes-range]") {
		t.Error("the Kubernetes range, which the pin's own rule judges, is warned about")
	}
	if calicofacts.Warnings(rel(t, "v3.31.6"), rel(t, "v3.31.6"), "x") != nil {
		t.Error("warnings without a move")
	}
}
