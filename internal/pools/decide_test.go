package pools

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
)

var (
	t0 = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	t1 = time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
)

func pool(name, cidr string, mut ...func(*calicov1.IPPoolSpec)) calicov1.IPPool {
	p := calicov1.IPPool{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: calicov1.IPPoolSpec{
		CIDR: cidr, BlockSize: 26, IPIPMode: "Always", VXLANMode: "Never", NATOutgoing: true, NodeSelector: "all()",
	}}
	for _, m := range mut {
		m(&p.Spec)
	}
	return p
}

func disabled(s *calicov1.IPPoolSpec)   { s.Disabled = true }
func vxlan(s *calicov1.IPPoolSpec)      { s.IPIPMode, s.VXLANMode = "Never", "Always" }
func noEncap(s *calicov1.IPPoolSpec)    { s.IPIPMode, s.VXLANMode = "Never", "Never" }
func notAnyNode(s *calicov1.IPPoolSpec) { s.NodeSelector = "!all()" }
func noSNAT(s *calicov1.IPPoolSpec) {
	s.Disabled, s.DisableBGPExport, s.IPIPMode, s.VXLANMode, s.BlockSize = true, true, "Never", "Never", 0
}

func rec(name, cidr, ipip, vxlan string, changes ...string) Record {
	return Record{Name: name, CIDR: cidr, Created: t0, IPIPMode: calicov1.IPIPMode(ipip), VXLANMode: calicov1.VXLANMode(vxlan), OwnerChanges: changes}
}

func TestDecide(t *testing.T) {
	def := pool("default-ipv4-ippool", "100.64.0.0/12")
	type want struct {
		actions []string // "Create name" or "PatchEncapsulation name ipip vxlan"
		records []Record
		reasons []string // "pool Reason conflict?"
	}
	tests := []struct {
		name    string
		desired []calicov1.IPPool
		live    []calicov1.IPPool
		records []Record
		want    want
	}{{
		name:    "first reconcile of an empty cluster creates the pool and records it",
		desired: []calicov1.IPPool{def},
		want: want{
			actions: []string{"Create default-ipv4-ippool"},
			records: []Record{{Name: "default-ipv4-ippool", CIDR: "100.64.0.0/12", Created: t1, IPIPMode: "Always", VXLANMode: "Never"}},
		},
	}, {
		name:    "unchanged config and untouched pool: nothing to do",
		desired: []calicov1.IPPool{def},
		live:    []calicov1.IPPool{def},
		records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never")},
		want:    want{records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never")}},
	}, {
		name:    "owner disabled the pool: kept disabled, conflict reported",
		desired: []calicov1.IPPool{def},
		live:    []calicov1.IPPool{pool("default-ipv4-ippool", "100.64.0.0/12", disabled), pool("new-pool", "100.80.0.0/16")},
		records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never")},
		want: want{
			records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never", "disabled")},
			reasons: []string{"default-ipv4-ippool PoolDisabledByOwner conflict"},
		},
	}, {
		name:    "owner deleted the pool after migrating: never created again",
		desired: []calicov1.IPPool{def},
		live:    []calicov1.IPPool{pool("new-pool", "100.80.0.0/16")},
		records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never")},
		want: want{
			records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never", "deleted")},
			reasons: []string{"default-ipv4-ippool PoolDeletedByOwner conflict"},
		},
	}, {
		name:    "owner deleted every pool: still not created again",
		desired: []calicov1.IPPool{def},
		records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never", "deleted")},
		want: want{
			records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never", "deleted")},
			reasons: []string{"default-ipv4-ippool PoolDeletedByOwner conflict"},
		},
	}, {
		name:    "overlay switch patches the encapsulation of a disabled pool and keeps it disabled",
		desired: []calicov1.IPPool{pool("default-ipv4-ippool", "100.64.0.0/12", noEncap)},
		live:    []calicov1.IPPool{pool("default-ipv4-ippool", "100.64.0.0/12", disabled), pool("new-pool", "100.80.0.0/16")},
		records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never")},
		want: want{
			actions: []string{"PatchEncapsulation default-ipv4-ippool Never Never"},
			records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Never", "Never", "disabled")},
			reasons: []string{"default-ipv4-ippool PoolDisabledByOwner conflict"},
		},
	}, {
		name:    "owner changed the encapsulation: kept while the config does not change it",
		desired: []calicov1.IPPool{def},
		live:    []calicov1.IPPool{pool("default-ipv4-ippool", "100.64.0.0/12", vxlan)},
		records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never")},
		want: want{
			records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never", "encapsulation")},
			reasons: []string{"default-ipv4-ippool PoolEncapsulationChangedByOwner"},
		},
	}, {
		name:    "config change to what the owner already set: no patch, no finding",
		desired: []calicov1.IPPool{pool("default-ipv4-ippool", "100.64.0.0/12", vxlan)},
		live:    []calicov1.IPPool{pool("default-ipv4-ippool", "100.64.0.0/12", vxlan)},
		records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never", "encapsulation")},
		want:    want{records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Never", "Always")}},
	}, {
		name:    "owner's node selector (the pre-3.29 disable) is kept",
		desired: []calicov1.IPPool{def},
		live:    []calicov1.IPPool{pool("default-ipv4-ippool", "100.64.0.0/12", notAnyNode)},
		records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never")},
		want: want{
			records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never", "nodeSelector")},
			reasons: []string{"default-ipv4-ippool PoolNodeSelectorChangedByOwner conflict"},
		},
	}, {
		name:    "a cluster with the owner's own IPv4 pool gets no default pool",
		desired: []calicov1.IPPool{def},
		live:    []calicov1.IPPool{pool("owners-pool", "10.244.0.0/16", disabled)},
		want:    want{reasons: []string{"default-ipv4-ippool FamilyHasPool"}},
	}, {
		name:    "an IPv6 pool does not stop the IPv4 pool",
		desired: []calicov1.IPPool{def},
		live:    []calicov1.IPPool{pool("v6", "fd00::/48", noEncap)},
		want: want{
			actions: []string{"Create default-ipv4-ippool"},
			records: []Record{{Name: "default-ipv4-ippool", CIDR: "100.64.0.0/12", Created: t1, IPIPMode: "Always", VXLANMode: "Never"}},
		},
	}, {
		name:    "a pool created by calico-node or released by the previous manifest generation is adopted as it is",
		desired: []calicov1.IPPool{def},
		live:    []calicov1.IPPool{pool("default-ipv4-ippool", "100.64.0.0/12", disabled)},
		want: want{
			records: []Record{{Name: "default-ipv4-ippool", CIDR: "100.64.0.0/12", Created: t1, Adopted: true, IPIPMode: "Always", VXLANMode: "Never", OwnerChanges: []string{"disabled"}}},
			reasons: []string{"default-ipv4-ippool PoolAdopted", "default-ipv4-ippool PoolDisabledByOwner conflict"},
		},
	}, {
		name:    "a recorded name with another CIDR is the owner's pool",
		desired: []calicov1.IPPool{def},
		live:    []calicov1.IPPool{pool("default-ipv4-ippool", "100.96.0.0/16", vxlan)},
		records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never")},
		want: want{
			records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never", "replaced")},
			reasons: []string{"default-ipv4-ippool PoolReplacedByOwner conflict"},
		},
	}, {
		name:    "overlay off adds the no-SNAT pool next to the recorded default pool",
		desired: []calicov1.IPPool{pool("default-ipv4-ippool", "100.64.0.0/12", noEncap), pool("no-snat-for-node-cidr", "10.250.0.0/16", noSNAT)},
		live:    []calicov1.IPPool{def},
		records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never")},
		want: want{
			actions: []string{"PatchEncapsulation default-ipv4-ippool Never Never", "Create no-snat-for-node-cidr"},
			records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Never", "Never"),
				{Name: "no-snat-for-node-cidr", CIDR: "10.250.0.0/16", Created: t1, IPIPMode: "Never", VXLANMode: "Never"}},
		},
	}, {
		name:    "a pool the config no longer asks for is left in place and its record kept",
		desired: []calicov1.IPPool{def},
		live:    []calicov1.IPPool{def, pool("no-snat-for-node-cidr", "10.250.0.0/16", noSNAT)},
		records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never"), rec("no-snat-for-node-cidr", "10.250.0.0/16", "Never", "Never")},
		want: want{
			records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never"), rec("no-snat-for-node-cidr", "10.250.0.0/16", "Never", "Never")},
			reasons: []string{"no-snat-for-node-cidr PoolLeftInPlace"},
		},
	}, {
		name:    "a CIDR change in the config is reported, never applied",
		desired: []calicov1.IPPool{pool("default-ipv4-ippool", "100.96.0.0/11")},
		live:    []calicov1.IPPool{def},
		records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never")},
		want: want{
			records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never")},
			reasons: []string{"default-ipv4-ippool PoolImmutableFieldChange conflict"},
		},
	}, {
		name:    "the owner's extra pool is never touched",
		desired: []calicov1.IPPool{def},
		live:    []calicov1.IPPool{def, pool("extra", "100.80.0.0/16", vxlan, disabled)},
		records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never")},
		want:    want{records: []Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never")}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Decide(tt.desired, tt.live, tt.records, t1)
			var got want
			for _, a := range res.Actions {
				s := string(a.Kind) + " " + a.Name
				if a.Kind == ActionPatchEncapsulation {
					s += " " + string(a.IPIPMode) + " " + string(a.VXLANMode)
				}
				got.actions = append(got.actions, s)
			}
			got.records = res.Records
			for _, f := range res.Findings {
				s := f.Pool + " " + f.Reason
				if f.Conflict {
					s += " conflict"
				}
				got.reasons = append(got.reasons, s)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("Decide (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecideNeverDeletesNorTouchesOtherFields(t *testing.T) {
	// Whatever the inputs, actions are creates of unrecorded pools or encapsulation patches.
	live := []calicov1.IPPool{pool("default-ipv4-ippool", "100.64.0.0/12", disabled, notAnyNode), pool("extra", "100.80.0.0/16")}
	res := Decide([]calicov1.IPPool{pool("default-ipv4-ippool", "100.64.0.0/12", vxlan)}, live,
		[]Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never")}, t1)
	if len(res.Actions) != 1 || res.Actions[0].Kind != ActionPatchEncapsulation {
		t.Fatalf("actions = %+v, want one encapsulation patch", res.Actions)
	}
	if got, want := string(res.Actions[0].MergePatch()), `{"spec":{"ipipMode":"Never","vxlanMode":"Always"}}`; got != want {
		t.Errorf("merge patch = %s, want %s", got, want)
	}
}

func TestFindingMessages(t *testing.T) {
	res := Decide([]calicov1.IPPool{pool("default-ipv4-ippool", "100.64.0.0/12")}, []calicov1.IPPool{pool("new-pool", "100.80.0.0/16")},
		[]Record{rec("default-ipv4-ippool", "100.64.0.0/12", "Always", "Never")}, t1)
	want := "IP pool default-ipv4-ippool (100.64.0.0/12), created by calico-pilot, was deleted by the cluster's owner; it is not created again"
	if len(res.Findings) != 1 || res.Findings[0].Message != want {
		t.Errorf("findings = %+v, want one with message %q", res.Findings, want)
	}
}

// IntentChanged is what lets an unasked reconcile skip the shoot: it must be true whenever a sync
// would write (Decide returns an action) or record something new, and false for the records a
// sync left behind, owner edits included.
func TestIntentChanged(t *testing.T) {
	def := pool("default-ipv4-ippool", "100.96.0.0/11")
	tests := []struct {
		name    string
		desired []calicov1.IPPool
		records []Record
		want    bool
	}{
		{name: "no pools, no records", want: false},
		{name: "first sync", desired: []calicov1.IPPool{def}, want: true},
		{name: "recorded as desired", desired: []calicov1.IPPool{def}, records: []Record{rec("default-ipv4-ippool", "100.96.0.0/11", "Always", "Never")}},
		{name: "recorded, deleted by the owner", desired: []calicov1.IPPool{def}, records: []Record{rec("default-ipv4-ippool", "100.96.0.0/11", "Always", "Never", "deleted")}},
		{name: "recorded, other CIDR spelling", desired: []calicov1.IPPool{def}, records: []Record{rec("default-ipv4-ippool", "100.96.0.1/11", "Always", "Never")}},
		{name: "encapsulation changed", desired: []calicov1.IPPool{pool("default-ipv4-ippool", "100.96.0.0/11", vxlan)}, records: []Record{rec("default-ipv4-ippool", "100.96.0.0/11", "Always", "Never")}, want: true},
		{name: "CIDR changed", desired: []calicov1.IPPool{pool("default-ipv4-ippool", "100.64.0.0/11")}, records: []Record{rec("default-ipv4-ippool", "100.96.0.0/11", "Always", "Never")}, want: true},
		{name: "second family added", desired: []calicov1.IPPool{def, pool("default-ipv6-ippool", "fd00::/48")}, records: []Record{rec("default-ipv4-ippool", "100.96.0.0/11", "Always", "Never")}, want: true},
		{name: "pool no longer desired", records: []Record{rec("default-ipv4-ippool", "100.96.0.0/11", "Always", "Never")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IntentChanged(tt.desired, tt.records); got != tt.want {
				t.Errorf("IntentChanged = %t, want %t", got, tt.want)
			}
			if tt.want {
				return
			}
			// Unchanged intent: a sync against a cluster that holds what was recorded writes nothing.
			live := append([]calicov1.IPPool(nil), tt.desired...)
			if res := Decide(tt.desired, live, tt.records, time.Now()); len(res.Actions) != 0 {
				t.Errorf("IntentChanged is false but Decide acts: %+v", res.Actions)
			}
		})
	}
}
