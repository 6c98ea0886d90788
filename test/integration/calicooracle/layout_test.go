package calicooracle

import (
	"context"
	"encoding/json"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/calico-pilot/calico-pilot/internal/calicooracle"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// renderInLayout renders scenario name with every component at release r through the pipeline with
// settings that put Calico in layout l with Typha TLS tls (nil: none), as apply does for a cluster
// it takes over (docs/layouts.md "Selecting a layout").
func renderInLayout(t *testing.T, name string, r calicoversion.Release, l layout.Layout, tls *layout.TyphaTLS) []*unstructured.Unstructured {
	t.Helper()
	i := slices.IndexFunc(rendertest.Scenarios(), func(sc rendertest.Scenario) bool { return sc.Name == name })
	if i < 0 {
		t.Fatalf("no scenario %s", name)
	}
	sc := rendertest.Scenarios()[i]
	shoot := rendertest.ShootOf(sc)
	cfg, errs := pipeline.ShootConfig(shoot)
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	vector, err := imagevector.LoadVector(nil)
	if err != nil {
		t.Fatal(err)
	}
	calico := calicoversion.Steady(r)
	images, err := vector.ImagesFor(imagevector.FindOptions{}, calico)
	if err != nil {
		t.Fatal(err)
	}
	var addresses []netip.Addr
	for _, a := range sc.Addresses {
		addresses = append(addresses, netip.MustParseAddr(a))
	}
	opts, errs := pipeline.Options(pipeline.Source{Shoot: shoot, SeedNamespace: "shoot--dev--test"}, cfg, values.Settings{
		FeatureGates:           values.FeatureGates{NonPrivilegedCalicoNode: sc.NonPrivileged},
		Images:                 images,
		KubeAPIServerAddresses: addresses,
		Calico:                 calico, Layout: l, TyphaTLS: tls,
	})
	if len(errs) > 0 {
		t.Fatalf("scenario %s in namespace %s: %v", name, l.Namespace, errs.ToAggregate())
	}
	objs, err := rendertest.Shoot(&opts)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		raw, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := json.Unmarshal(raw, &u.Object); err != nil {
			t.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

// ensureNamespace creates namespace name unless it exists (an operator-run cluster has calico-system).
func ensureNamespace(t *testing.T, cl *cluster, name string) {
	t.Helper()
	err := cl.c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// TestReplayOperatorLayout replays Calico v3.31.7's requests (the v3.31 line's table) for every
// scenario family rendered in the tigera operator's layout with its Typha TLS: calico-node, the CNI
// plugin, Typha and kube-controllers run as their calico-system ServiceAccounts, under the RBAC the
// render binds to those ServiceAccounts, and make the requests Calico makes in its own namespace
// (the CNI plugin's token, Typha's EndpointSlices) in calico-system. No request is refused, every
// row is replayed by some family, calico-node's start-up facts hold (Felix reads the Typha TLS
// settings), and no component runs as or is bound to a kube-system ServiceAccount. As a negative
// control, the same render with the kube-system layout's bindings is refused everything.
func TestReplayOperatorLayout(t *testing.T) {
	r, ok := calicoversion.Default().Release("v3.31.7")
	if !ok {
		t.Fatal("the catalogue has no release v3.31.7")
	}
	useCRDs(t, r)
	op, tls := layout.TigeraOperator(), layout.TigeraOperatorTyphaTLS()
	table, p := replayerFor(t, r)
	if table.CalicoVersion != "v3.31.6" {
		t.Fatalf("v3.31.7 is judged by the table of %s, want v3.31.6's (docs/calico-oracle.md)", table.CalicoVersion)
	}
	cl := newCluster(t)
	ensureNamespace(t, cl, "calico-system")
	t.Cleanup(func() { cl.apply(t, nil) })

	replayed := map[string]int{}
	total := 0
	for _, f := range families {
		t.Run(f.scenario, func(t *testing.T) {
			objs := renderInLayout(t, f.scenario, r, op, &tls)
			checkCalicoSystemRBAC(t, objs)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			d, err := calicooracle.InspectLayout(table, objs, op)
			if err != nil {
				t.Fatal(err)
			}
			if d.Namespace != "calico-system" {
				t.Fatalf("the components run in %q", d.Namespace)
			}
			_, typha := d.Components["typha"]
			_, kc := d.Components["kube-controllers"]
			if typha != f.typha || kc != f.kubeControllers || d.Conditions[calicooracle.CalicoIPAM] != f.calicoIPAM {
				t.Fatalf("scenario %s runs typha=%t kube-controllers=%t calicoIPAM=%t, the family says %t %t %t",
					f.scenario, typha, kc, d.Conditions[calicooracle.CalicoIPAM], f.typha, f.kubeControllers, f.calicoIPAM)
			}
			wantSA := map[string]string{"calico-node": "calico-node", "cni-plugin": "calico-cni-plugin", "typha": "calico-typha", "kube-controllers": "calico-kube-controllers"}
			for name, run := range d.Components {
				if run.ServiceAccount != wantSA[name] {
					t.Errorf("component %s runs as %s, want calico-system/%s", name, run.ServiceAccount, wantSA[name])
				}
			}
			// Felix's Typha TLS settings are the operator's (Typha on: they are rendered; off: dropped).
			if got, want := d.Env["FELIX_TYPHACN"], map[bool]string{true: "typha-server"}[typha]; got != want {
				t.Errorf("FELIX_TYPHACN = %q, want %q", got, want)
			}
			findings, err := calicooracle.CheckStartup(table, d)
			if err != nil {
				t.Fatal(err)
			}
			for _, finding := range findings {
				t.Errorf("start-up: %s", finding)
			}
			if err := p.Reset(ctx); err != nil {
				t.Fatal(err)
			}
			cl.apply(t, objs)
			results, err := p.Replay(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range results {
				replayed[res.Row]++
				if res.Problem != "" {
					t.Errorf("%s", res)
				}
				if (res.Row == "node-token-for-cni-plugin" || res.Row == "typha-rebalance") && res.Target.Namespace != "calico-system" {
					t.Errorf("%s was made in namespace %q, want calico-system (the component's own)", res.Row, res.Target.Namespace)
				}
			}
			total += len(results)
			t.Logf("%d requests replayed as %d components in calico-system", len(results), len(d.Components))
		})
	}
	var never []string
	for _, row := range table.Requests {
		if replayed[row.ID] == 0 && !row.Optional() { // the optional components' rows: components_test.go
			never = append(never, row.ID)
		}
	}
	if len(never) > 0 {
		t.Errorf("rows no scenario family replayed in the operator's layout: %v", never)
	}
	t.Logf("%d requests over %d scenario families in the operator's layout", total, len(families))

	t.Run("kube-system bindings are refused", func(t *testing.T) {
		objs := renderInLayout(t, "calico-ipam", r, op, &tls)
		bindings := map[string]*unstructured.Unstructured{}
		for _, u := range renderInLayout(t, "calico-ipam", r, layout.Layout{}, nil) {
			if u.GetKind() == "ClusterRoleBinding" || u.GetKind() == "RoleBinding" {
				bindings[u.GetKind()+"/"+u.GetName()] = u
			}
		}
		var swapped []*unstructured.Unstructured
		for _, u := range objs {
			if b, ok := bindings[u.GetKind()+"/"+u.GetName()]; ok && u.GetKind() == "ClusterRoleBinding" {
				u = b
			}
			swapped = append(swapped, u)
		}
		d, err := calicooracle.InspectLayout(table, swapped, op)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := p.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		cl.apply(t, swapped)
		results, err := p.Replay(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		// No binding names a calico-system ServiceAccount: every request is refused.
		refused := 0
		for _, res := range results {
			if res.Answer == "forbidden" {
				refused++
			}
		}
		if refused == 0 || refused != len(results) {
			t.Errorf("%d of %d requests refused with the kube-system bindings, want all", refused, len(results))
		}
	})
}

// checkCalicoSystemRBAC fails for a render whose Calico workloads or bindings name a ServiceAccount
// outside calico-system.
func checkCalicoSystemRBAC(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	for _, u := range objs {
		switch u.GetKind() {
		case "DaemonSet", "Deployment", "ServiceAccount":
			if strings.HasPrefix(u.GetName(), "calico-") && u.GetNamespace() != "calico-system" {
				t.Errorf("%s %s/%s is outside calico-system", u.GetKind(), u.GetNamespace(), u.GetName())
			}
		case "ClusterRoleBinding", "RoleBinding":
			subjects, _, _ := unstructured.NestedSlice(u.Object, "subjects")
			for _, s := range subjects {
				m := s.(map[string]any)
				if m["kind"] == "ServiceAccount" && strings.HasPrefix(m["name"].(string), "calico-") && m["namespace"] != "calico-system" {
					t.Errorf("%s %s binds ServiceAccount %s/%s", u.GetKind(), u.GetName(), m["namespace"], m["name"])
				}
			}
		}
	}
}
