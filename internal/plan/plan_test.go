package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/manifestdiff"
	"github.com/calico-pilot/calico-pilot/internal/manifestdiff/manifestdifftest"
)

const (
	poolOld = `apiVersion: crd.projectcalico.org/v1
kind: IPPool
metadata:
  name: default-ipv4-ippool
spec:
  cidr: 100.96.0.0/11
  blockSize: 26
  ipipMode: Always
`
	poolIgnored = `apiVersion: crd.projectcalico.org/v1
kind: IPPool
metadata:
  name: default-ipv4-ippool
  annotations:
    resources.gardener.cloud/mode: Ignore
spec:
  cidr: 100.96.0.0/11
  blockSize: 26
  ipipMode: Always
`
)

// crdV1 is the IPPool CRD with spec properties cidr and namespaceSelector;
// crdV1NoNamespaceSelector drops namespaceSelector.
var (
	crdV1                    = manifestdifftest.IPPoolCRD("cidr: {type: string}", "namespaceSelector: {type: string}")
	crdV1NoNamespaceSelector = manifestdifftest.IPPoolCRD("cidr: {type: string}")
)

// parser is a manifestdiff parser.
func parser(t testing.TB) *manifestdiff.Parser {
	t.Helper()
	p, err := manifestdiff.NewParser()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// stream parses manifest, a manifest stream called name.
func stream(t *testing.T, name, manifest string) *manifestdiff.Set {
	t.Helper()
	s, err := parser(t).Stream(name, []byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func diff(t *testing.T, old, new string) *manifestdiff.Diff {
	t.Helper()
	d := manifestdiff.Compare(stream(t, "old", old), stream(t, "new", new))
	manifestdiff.DefaultClassifier().Classify(d)
	return d
}

func livePool(name, cidr string, disabled bool) calicov1.IPPool {
	return calicov1.IPPool{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: calicov1.IPPoolSpec{CIDR: cidr, BlockSize: 26, Disabled: disabled}}
}

func liveBlock(cidr, node string) calicov1.IPAMBlock {
	aff, zero := "host:"+node, 0
	return calicov1.IPAMBlock{Spec: calicov1.IPAMBlockSpec{CIDR: cidr, Affinity: &aff, Allocations: []*int{&zero},
		Attributes: []calicov1.AllocationAttribute{{Secondary: map[string]string{"namespace": "default", "pod": "web", "node": node}}}}}
}

func namedBlock(name string, b calicov1.IPAMBlock) calicov1.IPAMBlock {
	b.Name = name
	return b
}

func TestBlockers(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		live     *Live
		want     []Blocker
	}{{
		name: "unchanged: none",
		old:  poolIgnored + "---\n" + crdV1, new: poolIgnored + "---\n" + crdV1,
	}, {
		name: "CIDR change",
		old:  poolOld, new: `apiVersion: crd.projectcalico.org/v1
kind: IPPool
metadata:
  name: default-ipv4-ippool
spec:
  cidr: 100.64.0.0/11
  blockSize: 26
  ipipMode: Always
`,
		want: []Blocker{{Object: "IPPool default-ipv4-ippool", Message: "IP pool default-ipv4-ippool: spec.cidr cannot change (100.96.0.0/11 -> 100.64.0.0/11); Calico keeps the old value and its IPAM blocks; create a new pool and move to it with `calico-pilot pools migrate`"}},
	}, {
		name: "removing a pool with allocations",
		old:  poolOld + "---\n" + crdV1, new: crdV1,
		live: &Live{Pools: []calicov1.IPPool{livePool("default-ipv4-ippool", "100.96.0.0/11", false)}, Blocks: []calicov1.IPAMBlock{liveBlock("100.96.1.0/26", "node-a")}},
		want: []Blocker{{Object: "IPPool default-ipv4-ippool", Message: "IP pool default-ipv4-ippool (100.96.0.0/11) would be deleted by the resource manager but still holds 1 address(es) (1 pod(s), 0 tunnel address(es)) on 1 node(s); drain it first (calico-pilot pools migrate)"}},
	}, {
		// Issue 21 finding 1: a /28 pool with blockSize 26 has its addresses in a /26 block that is
		// larger than the pool; the census used to count only blocks inside the pool.
		name: "removing a pool smaller than its block that holds addresses",
		old:  poolOld + "---\n" + crdV1, new: crdV1,
		live: &Live{Pools: []calicov1.IPPool{livePool("default-ipv4-ippool", "100.96.0.0/28", false)}, Blocks: []calicov1.IPAMBlock{liveBlock("100.96.0.0/26", "node-a")}},
		want: []Blocker{{Object: "IPPool default-ipv4-ippool", Message: "IP pool default-ipv4-ippool (100.96.0.0/28) would be deleted by the resource manager but still holds 1 address(es) (1 pod(s), 0 tunnel address(es)) on 1 node(s); drain it first (calico-pilot pools migrate)"}},
	}, {
		// Issue 21 finding 2: a malformed block elsewhere made the census fail and the blocker vanish.
		name: "removing a pool when an IPAM block does not parse",
		old:  poolOld + "---\n" + crdV1, new: crdV1,
		live: &Live{Pools: []calicov1.IPPool{livePool("default-ipv4-ippool", "100.96.0.0/11", false)}, Blocks: []calicov1.IPAMBlock{liveBlock("100.96.1.0/26", "node-a"), namedBlock("broken", liveBlock("bad", "node-b"))}},
		want: []Blocker{{Object: "IPPool default-ipv4-ippool", Message: `IP pool default-ipv4-ippool (100.96.0.0/11) would be deleted by the resource manager, and its allocations could not be counted: IPAM block broken: spec.cidr "bad": netip.ParsePrefix("bad"): no '/'; the census cannot tell which pool it belongs to (fix or delete the block by hand)`}},
	}, {
		name: "releasing a pool (mode Ignore) is no removal",
		old:  poolOld, new: poolIgnored,
		live: &Live{Pools: []calicov1.IPPool{livePool("default-ipv4-ippool", "100.96.0.0/11", true)}, Blocks: []calicov1.IPAMBlock{liveBlock("100.96.1.0/26", "node-a")}},
	}, {
		name: "re-enabling a pool the owner disabled",
		old:  poolIgnored, new: poolOld,
		live: &Live{Pools: []calicov1.IPPool{livePool("default-ipv4-ippool", "100.96.0.0/11", true)}},
		want: []Blocker{{Object: "IPPool default-ipv4-ippool", Message: "IP pool default-ipv4-ippool is disabled in the cluster, and the target lists it enabled as a resource-manager object: the next sync would re-enable it; keep the owner's disable (resources.gardener.cloud/mode: Ignore, as calico-pilot renders pools)"}},
	}, {
		name: "dropping a CRD",
		old:  crdV1, new: poolIgnored,
		live: &Live{CRDs: map[string]CRDState{"ippools.crd.projectcalico.org": {StoredVersions: []string{"v1"}, Objects: 3}}},
		want: []Blocker{{Object: "CustomResourceDefinition ippools.crd.projectcalico.org", Message: "CRD ippools.crd.projectcalico.org would be deleted, and with it its 3 stored object(s); calico-pilot never deletes Calico CRDs except with the whole Network"}},
	}, {
		name: "dropping a CRD field stored objects use",
		old:  crdV1, new: crdV1NoNamespaceSelector,
		live: &Live{CRDs: map[string]CRDState{"ippools.crd.projectcalico.org": {StoredVersions: []string{"v1"}, Objects: 2, FieldUse: map[string]int{"spec.namespaceSelector": 1}}}},
		want: []Blocker{{Object: "CustomResourceDefinition ippools.crd.projectcalico.org", Message: "CRD ippools.crd.projectcalico.org: field spec.namespaceSelector is dropped from the schema but 1 stored object(s) set it; it would be pruned from them"}},
	}, {
		name: "dropping a CRD field nothing uses",
		old:  crdV1, new: crdV1NoNamespaceSelector,
		live: &Live{CRDs: map[string]CRDState{"ippools.crd.projectcalico.org": {StoredVersions: []string{"v1"}, Objects: 2}}},
	}, {
		name: "downgrade across a storage change",
		old:  crdV1, new: crdV1,
		live: &Live{CRDs: map[string]CRDState{"ippools.crd.projectcalico.org": {StoredVersions: []string{"v1", "v3"}}}},
		want: []Blocker{{Object: "CustomResourceDefinition ippools.crd.projectcalico.org", Message: "CRD ippools.crd.projectcalico.org: objects are stored as v3, which the target does not serve (it serves v1); a downgrade across a CRD storage change would make them unreadable"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Blockers(diff(t, tt.old, tt.new), tt.live)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Blockers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSchemaField(t *testing.T) {
	for in, want := range map[string]string{
		"spec versions [] schema openAPIV3Schema properties spec properties namespaceSelector": "spec.namespaceSelector",
		"spec versions [] schema openAPIV3Schema properties spec properties x type":            "",
		"spec versions [] name": "",
	} {
		if got := schemaField(splitSpace(in)); got != want {
			t.Errorf("schemaField(%q) = %q, want %q", in, got, want)
		}
	}
}

func splitSpace(s string) []string {
	var out []string
	cur := ""
	for _, r := range s {
		if r == ' ' {
			out = append(out, cur)
			cur = ""
			continue
		}
		cur += string(r)
	}
	return append(out, cur)
}
