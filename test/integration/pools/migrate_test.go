package pools

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/cmd"
)

func clusterClient(t *testing.T) client.Client {
	t.Helper()
	c, err := cp.NewClient(calicov1.AddToScheme, apiextensionsv1.AddToScheme)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// kubeconfig writes an admin kubeconfig of the control plane and returns its path.
func kubeconfig(t *testing.T) string {
	t.Helper()
	kc, err := cp.AdminKubeconfig("admin-" + strings.ToLower(t.Name()[:8]))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func reset(t *testing.T) {
	t.Helper()
	c := clusterClient(t)
	for _, obj := range []client.Object{&calicov1.IPPool{}, &calicov1.IPAMBlock{}, &calicov1.BlockAffinity{}} {
		if err := c.DeleteAllOf(context.Background(), obj); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}
}

func create(t *testing.T, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := clusterClient(t).Create(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
}

func ippool(name, cidr string, disabled bool) *calicov1.IPPool {
	return &calicov1.IPPool{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: calicov1.IPPoolSpec{
		CIDR: cidr, BlockSize: 26, IPIPMode: "Always", VXLANMode: "Never", NATOutgoing: true, NodeSelector: "all()", Disabled: disabled}}
}

func intp(i int) *int { return &i }

// ipamBlock is a block of node with one tunnel address and the given pods.
func ipamBlock(name, cidr, node string, pods ...string) *calicov1.IPAMBlock {
	aff := "host:" + node
	b := &calicov1.IPAMBlock{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: calicov1.IPAMBlockSpec{CIDR: cidr, Affinity: &aff, Allocations: make([]*int, 64), Unallocated: []int{}}}
	b.Spec.Attributes = append(b.Spec.Attributes, calicov1.AllocationAttribute{Secondary: map[string]string{"node": node, "type": "ipipTunnelAddress"}})
	b.Spec.Allocations[0] = intp(0)
	for i, p := range pods {
		ns, name, _ := strings.Cut(p, "/")
		b.Spec.Attributes = append(b.Spec.Attributes, calicov1.AllocationAttribute{Secondary: map[string]string{"namespace": ns, "pod": name, "node": node}})
		b.Spec.Allocations[i+1] = intp(i + 1)
	}
	for i := len(pods) + 1; i < 64; i++ {
		b.Spec.Unallocated = append(b.Spec.Unallocated, i)
	}
	return b
}

func affinity(name, cidr, node string) *calicov1.BlockAffinity {
	return &calicov1.BlockAffinity{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: calicov1.BlockAffinitySpec{State: "confirmed", Node: node, CIDR: cidr, Deleted: "false"}}
}

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cmd.Execute(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func getPool(t *testing.T, name string) *calicov1.IPPool {
	t.Helper()
	p := &calicov1.IPPool{}
	err := clusterClient(t).Get(context.Background(), client.ObjectKey{Name: name}, p)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPoolsMigrate walks the migration: dry run, disable, re-run, refused delete with the exact
// census, delete once drained; the Calico CRDs and IPAM data stay.
func TestPoolsMigrate(t *testing.T) {
	reset(t)
	kc := kubeconfig(t)
	create(t, ippool("default-ipv4-ippool", "192.168.0.0/16", false), ippool("new-pool", "10.244.0.0/16", false),
		ipamBlock("192-168-1-0-26", "192.168.1.0/26", "node-a", "default/web-1", "kube-system/coredns-0"),
		ipamBlock("192-168-2-0-26", "192.168.2.0/26", "node-b"),
		ipamBlock("10-244-0-0-26", "10.244.0.0/26", "node-a", "default/web-2"),
		affinity("node-a-192-168-1-0-26", "192.168.1.0/26", "node-a"), affinity("node-b-192-168-2-0-26", "192.168.2.0/26", "node-b"))
	base := []string{"pools", "migrate", "--from", "default-ipv4-ippool", "--to", "new-pool", "--kubeconfig", kc, "--cluster-cidr", "10.0.0.0/8,192.168.0.0/16"}

	code, out, _ := run(t, append(base, "--dry-run")...)
	if code != 1 || !strings.Contains(out, "disable default-ipv4-ippool: would run (--dry-run)") {
		t.Fatalf("dry run: exit %d, out:\n%s", code, out)
	}
	if getPool(t, "default-ipv4-ippool").Spec.Disabled {
		t.Fatal("--dry-run wrote")
	}

	code, out, _ = run(t, base...)
	wantCensus := "census of default-ipv4-ippool (192.168.0.0/16): 2 block(s), 2 pod(s), 2 tunnel address(es), 0 other\n" +
		"  node-a: 1 block(s), 2 pod(s), 1 tunnel address(es): default/web-1, kube-system/coredns-0\n" +
		"  node-b: 1 block(s), 0 pod(s), 1 tunnel address(es)\n"
	if code != 0 || !strings.Contains(out, "disable default-ipv4-ippool: done\n"+wantCensus) {
		t.Fatalf("migrate: exit %d, out:\n%s", code, out)
	}
	if p := getPool(t, "default-ipv4-ippool"); !p.Spec.Disabled || p.Spec.IPIPMode != "Always" || p.Spec.NodeSelector != "all()" {
		t.Fatalf("old pool after migrate: %+v (only spec.disabled may change)", p.Spec)
	}

	code, out, _ = run(t, base...)
	if code != 0 || !strings.Contains(out, "nothing left to do") {
		t.Fatalf("re-run: exit %d, out:\n%s", code, out)
	}

	code, out, errOut := run(t, append(base, "--delete-old")...)
	wantRefusal := `IP pool "default-ipv4-ippool" still holds 4 address(es) (2 pod(s), 2 tunnel address(es)) on 2 node(s): recreate those pods (and let calico-node move its tunnel address) and run again; it is not deleted`
	if code != 1 || !strings.Contains(out, "refused: "+wantRefusal) || strings.TrimSpace(errOut) != "error: "+wantRefusal {
		t.Fatalf("delete with allocations: exit %d, out:\n%s\nstderr: %s", code, out, errOut)
	}
	if getPool(t, "default-ipv4-ippool") == nil {
		t.Fatal("a pool with allocations was deleted")
	}

	// Drained: the blocks of the old pool are gone (Calico's IPAM GC releases them).
	c := clusterClient(t)
	for _, n := range []string{"192-168-1-0-26", "192-168-2-0-26"} {
		if err := c.Delete(context.Background(), &calicov1.IPAMBlock{ObjectMeta: metav1.ObjectMeta{Name: n}}); err != nil {
			t.Fatal(err)
		}
	}
	code, out, _ = run(t, append(base, "--delete-old", "-o", "json")...)
	var rep struct {
		Steps   []string `json:"steps"`
		Applied []string `json:"applied"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || len(rep.Applied) != 1 || rep.Applied[0] != "DeleteOld" {
		t.Fatalf("delete when drained: exit %d, out:\n%s (%v)", code, out, err)
	}
	if getPool(t, "default-ipv4-ippool") != nil {
		t.Fatal("old pool still there")
	}
	// Re-running after the delete cannot tell a finished migration from a typo in --from: exit 2,
	// saying both.
	code, _, errOut = run(t, append(base, "--delete-old")...)
	if code != 2 || !strings.Contains(errOut, `IP pool "default-ipv4-ippool" (--from) does not exist; the cluster's pools: new-pool (if an earlier pools migrate --delete-old deleted it, the migration is finished)`) {
		t.Fatalf("re-run after delete: exit %d, stderr:\n%s", code, errOut)
	}
	// Never deletes CRDs or other IPAM data.
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Get(context.Background(), client.ObjectKey{Name: "ippools.crd.projectcalico.org"}, crd); err != nil {
		t.Fatalf("IPPool CRD: %v", err)
	}
	var affs calicov1.BlockAffinityList
	if err := c.List(context.Background(), &affs); err != nil || len(affs.Items) != 2 {
		t.Fatalf("block affinities: %d, %v", len(affs.Items), err)
	}
}

// TestPoolsMigrateRefusesABadNewPool: every check of the new pool, each with its message and exit 2,
// and nothing written.
func TestPoolsMigrateRefusesABadNewPool(t *testing.T) {
	kc := kubeconfig(t)
	tests := []struct {
		name  string
		pools []client.Object
		extra []string
		want  string
	}{
		{"missing", []client.Object{ippool("default-ipv4-ippool", "192.168.0.0/16", false)}, nil,
			`IP pool "new-pool" (--to) does not exist: create the new pool first (kubectl apply), then run pools migrate`},
		{"overlap", []client.Object{ippool("default-ipv4-ippool", "192.168.0.0/16", false), ippool("new-pool", "192.168.128.0/17", false)}, nil,
			`IP pool "new-pool" (192.168.128.0/17) overlaps IP pool "default-ipv4-ippool" (192.168.0.0/16): pools must not overlap`},
		{"outside the pod range", []client.Object{ippool("default-ipv4-ippool", "192.168.0.0/16", false), ippool("new-pool", "10.244.0.0/16", false)}, []string{"--cluster-cidr", "192.168.0.0/16"},
			`IP pool "new-pool" (10.244.0.0/16) is not inside the cluster's pod range 192.168.0.0/16: traffic from its pods would be NATed or dropped; choose a CIDR inside it`},
		{"disabled new pool", []client.Object{ippool("default-ipv4-ippool", "192.168.0.0/16", false), ippool("new-pool", "10.244.0.0/16", true)}, nil,
			`IP pool "new-pool" (--to) is disabled: new pods could get no address; enable it first`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reset(t)
			create(t, tt.pools...)
			args := append([]string{"pools", "migrate", "--from", "default-ipv4-ippool", "--to", "new-pool", "--kubeconfig", kc}, tt.extra...)
			code, _, errOut := run(t, args...)
			if code != 2 || strings.TrimSpace(errOut) != "error: "+tt.want {
				t.Fatalf("exit %d, stderr %q, want 2 and %q", code, errOut, tt.want)
			}
			if getPool(t, "default-ipv4-ippool").Spec.Disabled {
				t.Fatal("the old pool was disabled although the new one was refused")
			}
		})
	}
}
