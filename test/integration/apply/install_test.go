package apply

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestApplyInstallsWithFactsFromKubeadm: an empty kubeadm cluster, a file with only the
// NetworkConfig: the facts come from kubeadm-config, the Nodes and kube-proxy's ConfigMap; CRDs are
// Established, everything is server-side applied by calico-pilot, the pool is created, the state
// and no Lease are left; a second apply changes nothing.
func TestApplyInstallsWithFactsFromKubeadm(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	ctx := context.Background()

	code, out, errOut := cl.apply(ctx, minimalFile)
	if code != 0 {
		t.Fatalf("apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"podCIDR: 10.244.0.0/16 (from kube-system/kubeadm-config networking.podSubnet)",
		"serviceCIDR: 10.96.0.0/12 (from kube-system/kubeadm-config networking.serviceSubnet)",
		"Node pod CIDRs: 3 Node(s), inside the pod network",
		"kube-proxy: running, mode IPVS (from kube-system/kube-proxy)",
		"created IP pool",
		"rolled out: calico-node",
		"applied: Calico v3.31.7 runs on every component",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	var ds appsv1.DaemonSet
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-node"}, &ds); err != nil {
		t.Fatal(err)
	}
	managers := map[string]bool{}
	for _, m := range ds.ManagedFields {
		managers[m.Manager+"/"+string(m.Operation)] = true
	}
	if !managers["calico-pilot/Apply"] {
		t.Errorf("calico-node's managers: %v, want calico-pilot/Apply", managers)
	}
	var crds apiextensionsv1.CustomResourceDefinitionList
	if err := cl.c.List(ctx, &crds); err != nil {
		t.Fatal(err)
	}
	if len(crds.Items) < 20 {
		t.Errorf("%d CRDs applied", len(crds.Items))
	}
	pools := cl.state().Pools
	if len(pools) != 1 || pools[0].CIDR != "10.244.0.0/16" {
		t.Fatalf("pool intent: %+v", pools)
	}
	if p := cl.pool(pools[0].Name); p.Spec.CIDR != "10.244.0.0/16" || p.Spec.Disabled {
		t.Errorf("pool: %+v", p.Spec)
	}
	st := cl.state()
	if st.Release != "v3.31.7" || st.CRDRelease != "v3.31.7" || st.Move != nil || len(st.Owned) < 30 {
		t.Errorf("state: release %q crds %q move %v, %d owned", st.Release, st.CRDRelease, st.Move, len(st.Owned))
	}
	var lease coordinationv1.Lease
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-pilot-apply"}, &lease); !apierrors.IsNotFound(err) {
		t.Errorf("the Lease is left after apply: %v", err)
	}

	// A second apply writes nothing: every object it applied keeps its resourceVersion (a server-side
	// apply of an unchanged object is not stored), no pool is created again.
	before := cl.resourceVersions(st.Owned)
	if code, out, errOut = cl.apply(ctx, minimalFile); code != 0 || strings.Contains(out, "created IP pool") {
		t.Fatalf("second apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if d := cmp.Diff(before, cl.resourceVersions(st.Owned)); d != "" {
		t.Errorf("the second apply changed objects (-before +after resourceVersion):\n%s", d)
	}

	code, out, errOut = cl.apply(ctx, minimalFile, "--dry-run")
	if code != 0 || !strings.Contains(out, "no changes") {
		t.Fatalf("dry-run after install: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	// --dry-run has plan's exit codes: IPIP to VXLAN changes the pool's encapsulation on every node at
	// once, a disruptive change: exit 1 unless --allow-disruption, and nothing changes.
	overlayOff := strings.Replace(minimalFile, "  overlay:\n    enabled: true\n", "  overlay:\n    enabled: true\n  ipv4:\n    pool: vxlan\n", 1)
	code, out, errOut = cl.apply(ctx, overlayOff, "--dry-run")
	if code != 1 || !strings.Contains(out, "disruptive") || !strings.Contains(errOut, "--allow-disruption") {
		t.Fatalf("dry-run of a disruptive change: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code, out, errOut = cl.apply(ctx, overlayOff, "--dry-run", "--allow-disruption"); code != 0 {
		t.Fatalf("dry-run --allow-disruption: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if st := cl.state(); st.Release != "v3.31.7" {
		t.Errorf("a dry-run changed the state: %+v", st)
	}
}
