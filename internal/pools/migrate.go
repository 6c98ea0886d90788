package pools

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/decode"
)

// MigrationInput is what `pools migrate` read from the cluster.
type MigrationInput struct {
	From, To string
	Pools    []calicov1.IPPool
	Blocks   []calicov1.IPAMBlock
	// ClusterCIDRs are the cluster's pod ranges (flag, or the nodes' podCIDRs); empty = unknown, no check.
	ClusterCIDRs []string
	// DeleteOld asks to delete the old pool once it holds no allocations.
	DeleteOld bool
}

// Pool is the pool named name as read, or nil.
func (in MigrationInput) Pool(name string) *calicov1.IPPool { return find(in.Pools, name) }

// MigrationStep is one write of a migration.
type MigrationStep string

const (
	// StepDisableOld merge-patches spec.disabled=true on the old pool.
	StepDisableOld MigrationStep = "DisableOld"
	// StepDeleteOld deletes the old pool (only when its census is empty).
	StepDeleteOld MigrationStep = "DeleteOld"
)

// MigrationPlan is the outcome of PlanMigration: the writes still to do (none on a finished
// migration, so re-running is safe) and the census of the old pool.
type MigrationPlan struct {
	From   string          `json:"from"`
	To     string          `json:"to"`
	Steps  []MigrationStep `json:"steps"`
	Census Census          `json:"census"`
	// Done says the old pool is disabled (and deleted when asked) and holds nothing the census saw.
	Done bool `json:"done"`
	// Blocked is why the old pool is not deleted yet (empty when nothing blocks).
	Blocked string `json:"blocked,omitempty"`
}

// InputError is an error in what the user asked for (exit 2), as opposed to a blocked migration.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// PlanMigration checks the new pool and decides the steps. All checks run before any step is
// returned, so a refused migration writes nothing.
func PlanMigration(in MigrationInput) (MigrationPlan, error) {
	plan := MigrationPlan{From: in.From, To: in.To}
	if in.From == "" || in.To == "" {
		return plan, &InputError{"--from and --to are required: the names of the old and the new IP pool"}
	}
	if in.From == in.To {
		return plan, &InputError{fmt.Sprintf("--from and --to are both %q: name two different IP pools", in.From)}
	}
	from, to := find(in.Pools, in.From), find(in.Pools, in.To)
	if to == nil {
		return plan, &InputError{fmt.Sprintf("IP pool %q (--to) does not exist%s: create the new pool first (kubectl apply), then run pools migrate", in.To, didYouMean(in.To, in.Pools))}
	}
	toPrefix, err := netip.ParsePrefix(to.Spec.CIDR)
	if err != nil {
		return plan, &InputError{fmt.Sprintf("IP pool %q: spec.cidr %q is not a CIDR", in.To, to.Spec.CIDR)}
	}
	if from == nil {
		// A typo ("olld", "OLD") must not look like a finished migration while the real pool stays
		// enabled with its allocations: a missing old pool is bad input. After an earlier run deleted
		// it, the same message says the migration is finished.
		return plan, &InputError{fmt.Sprintf("IP pool %q (--from) does not exist%s; the cluster's pools: %s (if an earlier pools migrate --delete-old deleted it, the migration is finished)",
			in.From, didYouMean(in.From, in.Pools), poolNames(in.Pools))}
	}
	fromPrefix, err := netip.ParsePrefix(from.Spec.CIDR)
	if err != nil {
		return plan, &InputError{fmt.Sprintf("IP pool %q: spec.cidr %q is not a CIDR", in.From, from.Spec.CIDR)}
	}
	if fromPrefix.Addr().Is4() != toPrefix.Addr().Is4() {
		return plan, &InputError{fmt.Sprintf("IP pool %q (%s) and %q (%s) are of different IP families: a migration moves pods within one family", in.From, from.Spec.CIDR, in.To, to.Spec.CIDR)}
	}
	if err := checkNewPool(in, to, toPrefix); err != nil {
		return plan, err
	}
	census, err := TakeCensus(from, in.Blocks)
	if err != nil {
		return plan, err
	}
	plan.Census = census
	if !from.Spec.Disabled {
		plan.Steps = append(plan.Steps, StepDisableOld)
	}
	if in.DeleteOld {
		if n := census.Allocations(); n > 0 {
			plan.Blocked = fmt.Sprintf("IP pool %q still holds %d address(es) (%d pod(s), %d tunnel address(es)) on %d node(s): recreate those pods (and let calico-node move its tunnel address) and run again; it is not deleted",
				in.From, n, census.Workloads, census.Tunnels, len(census.Nodes))
		} else {
			plan.Steps = append(plan.Steps, StepDeleteOld)
		}
	}
	plan.Done = len(plan.Steps) == 0 && plan.Blocked == ""
	return plan, nil
}

// checkNewPool refuses a new pool that cannot serve the pods the old one served: disabled, a pool
// Calico rejects or never assigns from (CheckServesPods), one that overlaps another pool or lies
// outside the cluster's pod range.
func checkNewPool(in MigrationInput, to *calicov1.IPPool, toPrefix netip.Prefix) error {
	if to.Spec.Disabled {
		return &InputError{fmt.Sprintf("IP pool %q (--to) is disabled: new pods could get no address; enable it first", in.To)}
	}
	if err := CheckServesPods(to, toPrefix); err != nil {
		return &InputError{fmt.Sprintf("IP pool %q (--to) cannot take the pods: %v", in.To, err)}
	}
	for i := range in.Pools {
		p := &in.Pools[i]
		if p.Name == to.Name {
			continue
		}
		pp, err := netip.ParsePrefix(p.Spec.CIDR)
		if err != nil {
			continue
		}
		if overlaps(pp, toPrefix) {
			return &InputError{fmt.Sprintf("IP pool %q (%s) overlaps IP pool %q (%s): pools must not overlap", in.To, to.Spec.CIDR, p.Name, p.Spec.CIDR)}
		}
	}
	if len(in.ClusterCIDRs) == 0 {
		return nil
	}
	var fam []string
	for _, c := range in.ClusterCIDRs {
		cp, err := netip.ParsePrefix(c)
		if err != nil {
			return &InputError{fmt.Sprintf("cluster pod CIDR %q is not a CIDR", c)}
		}
		if cp.Addr().Is4() != toPrefix.Addr().Is4() {
			continue
		}
		fam = append(fam, c)
		if within(toPrefix, cp) {
			return nil
		}
	}
	if len(fam) == 0 {
		return nil
	}
	return &InputError{fmt.Sprintf("IP pool %q (%s) is not inside the cluster's pod range %s: traffic from its pods would be NATed or dropped; choose a CIDR inside it", in.To, to.Spec.CIDR, strings.Join(fam, ", "))}
}

// didYouMean is ` (did you mean "x"?)` for the pool name closest to name, or "".
func didYouMean(name string, pools []calicov1.IPPool) string {
	if s := decode.Suggest(name, poolNameList(pools)); s != "" && s != name {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

func poolNameList(pools []calicov1.IPPool) []string {
	names := make([]string, 0, len(pools))
	for i := range pools {
		names = append(names, pools[i].Name)
	}
	sort.Strings(names)
	return names
}

// poolNames lists the pools' names for a message, "none" for no pool.
func poolNames(pools []calicov1.IPPool) string {
	if len(pools) == 0 {
		return "none"
	}
	return strings.Join(poolNameList(pools), ", ")
}

func find(pools []calicov1.IPPool, name string) *calicov1.IPPool {
	for i := range pools {
		if pools[i].Name == name {
			return &pools[i]
		}
	}
	return nil
}
