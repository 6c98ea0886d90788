package pools

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
)

func actionsOf(res Result) []string {
	var out []string
	for _, a := range res.Actions {
		s := string(a.Kind) + " " + a.Name
		if a.Kind == ActionPatchEncapsulation {
			s += " " + string(a.IPIPMode) + " " + string(a.VXLANMode)
		}
		out = append(out, s)
	}
	return out
}

// TestAdoptAsConfigured: a pool adopted now whose encapsulation the configuration states otherwise
// is patched in the same sync (the plan of the adoption shows it), and recorded with the
// configuration's; a pool adopted earlier is left to Decide.
func TestAdoptAsConfigured(t *testing.T) {
	desired := []calicov1.IPPool{pool("default-ipv4-ippool", "10.244.0.0/16")}
	live := []calicov1.IPPool{pool("default-ipv4-ippool", "10.244.0.0/16", vxlan)}
	res := AdoptAsConfigured(Decide(desired, live, nil, t1), desired, live)
	if d := cmp.Diff([]string{"PatchEncapsulation default-ipv4-ippool Always Never"}, actionsOf(res)); d != "" {
		t.Errorf("actions (-want +got):\n%s", d)
	}
	if r := res.Records[0]; r.IPIPMode != "Always" || r.VXLANMode != "Never" || !r.Adopted {
		t.Errorf("record %+v", r)
	}
	// Adopted before: the record holds the live modes; no config change, no patch.
	earlier := []Record{rec("default-ipv4-ippool", "10.244.0.0/16", "Never", "Always")}
	earlier[0].Adopted = true
	if got := actionsOf(AdoptAsConfigured(Decide(desired, live, earlier, t1), desired, live)); len(got) != 1 {
		t.Errorf("a pool adopted before: %v, want Decide's own patch (the config changed from the record)", got)
	}
}

// TestAdoptAsTheyRun: a pool adopted now keeps its live encapsulation, the record holds the
// configuration's, so that neither this sync nor the next patches it; its encapsulation is then the
// owner's, reported as such.
func TestAdoptAsTheyRun(t *testing.T) {
	desired := []calicov1.IPPool{pool("default-ipv4-ippool", "10.244.0.0/16")}
	live := []calicov1.IPPool{pool("default-ipv4-ippool", "10.244.0.0/16", func(s *calicov1.IPPoolSpec) { s.IPIPMode, s.VXLANMode = "Never", "CrossSubnet" })}
	res := AdoptAsTheyRun(Decide(desired, live, nil, t1), desired)
	if len(res.Actions) != 0 {
		t.Fatalf("actions %v, want none", actionsOf(res))
	}
	next := Decide(desired, live, res.Records, t1)
	if len(next.Actions) != 0 {
		t.Fatalf("the next sync patches: %v", actionsOf(next))
	}
	var reasons []string
	for _, f := range next.Findings {
		reasons = append(reasons, f.Reason)
	}
	if d := cmp.Diff([]string{ReasonEncapsulationChanged}, reasons); d != "" {
		t.Errorf("findings of the next sync (-want +got):\n%s", d)
	}
}

// TestImmutableChangeOfAMigratedPool: a configuration asking for another CIDR than a pool its owner
// has already migrated away from (disabled, another enabled pool of its family) does not advise the
// migration again and is no conflict; otherwise it is.
func TestImmutableChangeOfAMigratedPool(t *testing.T) {
	desired := []calicov1.IPPool{pool("default-ipv4-ippool", "10.244.0.0/16")}
	records := []Record{rec("default-ipv4-ippool", "192.168.0.0/16", "Always", "Never")}
	old := pool("default-ipv4-ippool", "192.168.0.0/16", disabled)
	for name, tc := range map[string]struct {
		live     []calicov1.IPPool
		want     string
		conflict bool
	}{
		"migrated": {live: []calicov1.IPPool{old, pool("new-pool", "10.244.0.0/16")},
			want: "IP pool default-ipv4-ippool keeps CIDR 192.168.0.0/16 and block size 26 (the configuration would use 10.244.0.0/16 and 26); it is disabled and the owner's pool(s) new-pool serve its family: nothing to do"},
		"not migrated": {live: []calicov1.IPPool{pool("default-ipv4-ippool", "192.168.0.0/16")}, conflict: true,
			want: "IP pool default-ipv4-ippool keeps CIDR 192.168.0.0/16 and block size 26: the configuration asks for 10.244.0.0/16 and 26, which Calico cannot change in place; create a new pool and run `calico-pilot pools migrate`"},
	} {
		t.Run(name, func(t *testing.T) {
			res := Decide(desired, tc.live, records, t1)
			for _, f := range res.Findings {
				if f.Reason != ReasonImmutableChange {
					continue
				}
				if f.Message != tc.want || f.Conflict != tc.conflict {
					t.Errorf("finding %q (conflict %v), want %q (conflict %v)", f.Message, f.Conflict, tc.want, tc.conflict)
				}
				if tc.conflict == strings.Contains(f.Message, "nothing to do") {
					t.Error("the wording does not fit the conflict")
				}
				return
			}
			t.Errorf("no %s finding in %+v", ReasonImmutableChange, res.Findings)
		})
	}
}
