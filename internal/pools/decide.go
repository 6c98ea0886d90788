package pools

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"time"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
)

// Record is what calico-pilot remembers about one pool it created or took over: stored in the
// Network's provider status so that a deleted pool is never created again and a config change is
// told apart from an owner's edit.
type Record struct {
	// Name and CIDR identify the pool.
	Name string
	CIDR string
	// Created is when calico-pilot created (or adopted) the pool.
	Created time.Time
	// Adopted is true when the pool existed before calico-pilot recorded it (created by calico-node
	// from its environment or rendered by an earlier manifest generation).
	Adopted bool
	// IPIPMode and VXLANMode are the encapsulation calico-pilot last asked for: a config change is
	// a change of these, whatever the live pool holds.
	IPIPMode  calicov1.IPIPMode
	VXLANMode calicov1.VXLANMode
	// OwnerChanges are the owner's edits calico-pilot saw last time (sorted, e.g. "disabled",
	// "deleted"); reported, never reverted.
	OwnerChanges []string
}

// ActionKind is what to do with a pool.
type ActionKind string

const (
	// ActionCreate creates the pool (Object holds it).
	ActionCreate ActionKind = "Create"
	// ActionPatchEncapsulation merge-patches spec.ipipMode and spec.vxlanMode, nothing else.
	ActionPatchEncapsulation ActionKind = "PatchEncapsulation"
)

// Action is one write to the cluster.
type Action struct {
	Kind ActionKind
	Name string
	// Object is the pool to create (ActionCreate).
	Object *calicov1.IPPool
	// IPIPMode and VXLANMode are the new encapsulation (ActionPatchEncapsulation).
	IPIPMode  calicov1.IPIPMode
	VXLANMode calicov1.VXLANMode
}

// MergePatch is the JSON merge patch of a PatchEncapsulation action: only the fields calico-pilot owns.
func (a Action) MergePatch() []byte {
	return fmt.Appendf(nil, `{"spec":{"ipipMode":%q,"vxlanMode":%q}}`, a.IPIPMode, a.VXLANMode)
}

// Finding reasons.
const (
	// ReasonDeletedByOwner: a pool calico-pilot created is gone; it is not created again.
	ReasonDeletedByOwner = "PoolDeletedByOwner"
	// ReasonDisabledByOwner: a pool calico-pilot created is disabled; it stays disabled.
	ReasonDisabledByOwner = "PoolDisabledByOwner"
	// ReasonNodeSelectorChanged: the owner restricted the pool's nodes (e.g. "!all()").
	ReasonNodeSelectorChanged = "PoolNodeSelectorChangedByOwner"
	// ReasonEncapsulationChanged: the owner changed the encapsulation; kept until the config changes it.
	ReasonEncapsulationChanged = "PoolEncapsulationChangedByOwner"
	// ReasonFamilyHasPool: the cluster already has a pool of the family, so the config's pool is not created.
	ReasonFamilyHasPool = "FamilyHasPool"
	// ReasonReplacedByOwner: a pool with the recorded name has another CIDR: the owner's pool now.
	ReasonReplacedByOwner = "PoolReplacedByOwner"
	// ReasonNoLongerRendered: the config no longer asks for a pool calico-pilot created; it is left in place.
	ReasonNoLongerRendered = "PoolLeftInPlace"
	// ReasonImmutableChange: the config asks for another CIDR or block size; not applied.
	ReasonImmutableChange = "PoolImmutableFieldChange"
	// ReasonAdopted: the pool existed before calico-pilot recorded it; its live spec is kept.
	ReasonAdopted = "PoolAdopted"
)

// Finding is something the owner did that the config would have done differently; Conflict is true
// when the config asks for something the owner overrode (the Network's condition turns False).
type Finding struct {
	Pool     string
	Reason   string
	Message  string
	Conflict bool
}

// Result is the outcome of Decide.
type Result struct {
	Actions  []Action
	Records  []Record
	Findings []Finding
}

// Decide compares the pools the config wants with the live pools and the record. It never returns
// a delete, never touches a field other than the encapsulation modes, and never creates a pool whose
// name is in the record. now stamps new records.
func Decide(desired, live []calicov1.IPPool, records []Record, now time.Time) Result {
	dc := decider{live: live, liveByName: make(map[string]*calicov1.IPPool, len(live)), recByName: make(map[string]Record, len(records)), now: now}
	for i := range live {
		dc.liveByName[live[i].Name] = &live[i]
	}
	for _, r := range records {
		dc.recByName[r.Name] = r
	}
	desiredNames := make(map[string]bool, len(desired))
	for _, d := range desired {
		desiredNames[d.Name] = true
	}
	for i := range desired {
		d := &desired[i]
		l := dc.liveByName[d.Name]
		rec, known := dc.recByName[d.Name]
		switch {
		case !known && l == nil:
			dc.create(d)
		case !known:
			dc.adopt(d, l)
		case l == nil:
			dc.deletedByOwner(d, rec)
		case canonical(l.Spec.CIDR) != canonical(rec.CIDR):
			dc.replacedByOwner(d, l, rec)
		default:
			dc.update(d, l, rec)
		}
	}
	// Records of pools the config no longer asks for stay: such a pool is never created again.
	for _, r := range records {
		if !desiredNames[r.Name] {
			dc.leaveInPlace(r)
		}
	}
	sort.Slice(dc.res.Records, func(i, j int) bool { return dc.res.Records[i].Name < dc.res.Records[j].Name })
	return dc.res
}

// decider holds Decide's inputs, indexed, and the result it builds one desired pool at a time.
type decider struct {
	live       []calicov1.IPPool
	liveByName map[string]*calicov1.IPPool
	recByName  map[string]Record
	now        time.Time
	res        Result
}

// finding adds a finding about pool name.
func (dc *decider) finding(name, reason string, conflict bool, message string) {
	dc.res.Findings = append(dc.res.Findings, Finding{Pool: name, Reason: reason, Conflict: conflict, Message: message})
}

// create creates a desired pool neither live nor recorded, unless it hands out addresses and the
// cluster already has a pool of its family.
func (dc *decider) create(d *calicov1.IPPool) {
	if other := familyPools(dc.live, d, dc.recByName); len(other) > 0 && allocating(d) {
		dc.finding(d.Name, ReasonFamilyHasPool, false,
			fmt.Sprintf("IP pool %s (%s) is not created: the cluster already has the %s pool(s) %v, which belong to the cluster's owner", d.Name, d.Spec.CIDR, family(d.Spec.CIDR), other))
		return
	}
	dc.res.Actions = append(dc.res.Actions, Action{Kind: ActionCreate, Name: d.Name, Object: d.DeepCopy()})
	dc.res.Records = append(dc.res.Records, Record{Name: d.Name, CIDR: d.Spec.CIDR, Created: dc.now,
		IPIPMode: d.Spec.IPIPMode, VXLANMode: d.Spec.VXLANMode})
}

// adopt records a desired pool that is live but not recorded.
func (dc *decider) adopt(d, l *calicov1.IPPool) {
	// Created by calico-node from its environment, or released by an earlier manifest
	// generation that listed it: take it over as it is, owner's edits included.
	rec := Record{Name: d.Name, CIDR: l.Spec.CIDR, Created: dc.now, Adopted: true,
		IPIPMode: l.Spec.IPIPMode, VXLANMode: l.Spec.VXLANMode}
	dc.finding(d.Name, ReasonAdopted, false,
		fmt.Sprintf("IP pool %s (%s) existed already; calico-pilot keeps its live spec and changes only its encapsulation when the config changes it", d.Name, l.Spec.CIDR))
	rec.OwnerChanges, dc.res.Findings = observe(d, l, rec, dc.res.Findings)
	dc.res.Records = append(dc.res.Records, rec)
}

// deletedByOwner keeps the record of a recorded pool that is gone: it is not created again.
func (dc *decider) deletedByOwner(d *calicov1.IPPool, rec Record) {
	rec.OwnerChanges = []string{"deleted"}
	dc.finding(d.Name, ReasonDeletedByOwner, true,
		fmt.Sprintf("IP pool %s (%s), created by calico-pilot, was deleted by the cluster's owner; it is not created again", d.Name, rec.CIDR))
	dc.res.Records = append(dc.res.Records, rec)
}

// replacedByOwner keeps the record of a recorded pool whose name now has another CIDR, and leaves
// the owner's pool alone.
func (dc *decider) replacedByOwner(d, l *calicov1.IPPool, rec Record) {
	rec.OwnerChanges = []string{"replaced"}
	dc.finding(d.Name, ReasonReplacedByOwner, true,
		fmt.Sprintf("IP pool %s has CIDR %s, not %s as created by calico-pilot: it is the owner's pool now and is left alone", d.Name, l.Spec.CIDR, rec.CIDR))
	dc.res.Records = append(dc.res.Records, rec)
}

// update brings a recorded live pool's encapsulation to the config's when the config changed it,
// reports an immutable change the config asks for, and observes the owner's edits.
func (dc *decider) update(d, l *calicov1.IPPool, rec Record) {
	if canonical(d.Spec.CIDR) != canonical(rec.CIDR) || (d.Spec.BlockSize != 0 && l.Spec.BlockSize != 0 && d.Spec.BlockSize != l.Spec.BlockSize) {
		dc.immutableChange(d, l)
	}
	// Only a change of the config touches the pool, and only its encapsulation.
	after := l.DeepCopy()
	if d.Spec.IPIPMode != rec.IPIPMode || d.Spec.VXLANMode != rec.VXLANMode {
		if l.Spec.IPIPMode != d.Spec.IPIPMode || l.Spec.VXLANMode != d.Spec.VXLANMode {
			dc.res.Actions = append(dc.res.Actions, Action{Kind: ActionPatchEncapsulation, Name: d.Name,
				IPIPMode: d.Spec.IPIPMode, VXLANMode: d.Spec.VXLANMode})
		}
		rec.IPIPMode, rec.VXLANMode = d.Spec.IPIPMode, d.Spec.VXLANMode
		after.Spec.IPIPMode, after.Spec.VXLANMode = d.Spec.IPIPMode, d.Spec.VXLANMode
	}
	rec.OwnerChanges, dc.res.Findings = observe(d, after, rec, dc.res.Findings)
	dc.res.Records = append(dc.res.Records, rec)
}

// immutableChange reports a configuration that asks for another CIDR or block size than the live
// pool has. When the owner has already moved away from the pool (it is disabled and other enabled
// pools of its family serve pods, as Calico's "migrate IP pools" leaves it), there is nothing to do
// and the finding says so instead of advising the migration again.
func (dc *decider) immutableChange(d, l *calicov1.IPPool) {
	if others := enabledFamilyPools(dc.live, l); l.Spec.Disabled && len(others) > 0 {
		dc.finding(d.Name, ReasonImmutableChange, false,
			fmt.Sprintf("IP pool %s keeps CIDR %s and block size %d (the configuration would use %s and %d); it is disabled and the owner's pool(s) %s serve its family: nothing to do", d.Name, l.Spec.CIDR, l.Spec.BlockSize, d.Spec.CIDR, d.Spec.BlockSize, strings.Join(others, ", ")))
		return
	}
	dc.finding(d.Name, ReasonImmutableChange, true,
		fmt.Sprintf("IP pool %s keeps CIDR %s and block size %d: the configuration asks for %s and %d, which Calico cannot change in place; create a new pool and run `calico-pilot pools migrate`", d.Name, l.Spec.CIDR, l.Spec.BlockSize, d.Spec.CIDR, d.Spec.BlockSize))
}

// enabledFamilyPools are the names of the enabled live pools of p's family other than p.
func enabledFamilyPools(live []calicov1.IPPool, p *calicov1.IPPool) []string {
	var names []string
	for i := range live {
		if l := &live[i]; l.Name != p.Name && !l.Spec.Disabled && family(l.Spec.CIDR) == family(p.Spec.CIDR) {
			names = append(names, l.Name)
		}
	}
	sort.Strings(names)
	return names
}

// leaveInPlace keeps the record of a pool the config no longer asks for, and reports the pool if
// it is still live.
func (dc *decider) leaveInPlace(r Record) {
	if dc.liveByName[r.Name] != nil {
		dc.finding(r.Name, ReasonNoLongerRendered, false,
			fmt.Sprintf("IP pool %s (%s) is no longer part of the configuration; calico-pilot leaves it in place and no longer changes it", r.Name, r.CIDR))
	}
	dc.res.Records = append(dc.res.Records, r)
}

// IntentChanged says whether the config asks for something about pools that the records do not
// hold yet: a pool without a record (to create or adopt), or another encapsulation or CIDR than
// the record's. When it does not, a sync could only find the owner's edits, which are reported,
// never acted upon.
func IntentChanged(desired []calicov1.IPPool, records []Record) bool {
	recByName := make(map[string]Record, len(records))
	for _, r := range records {
		recByName[r.Name] = r
	}
	for i := range desired {
		d := &desired[i]
		rec, ok := recByName[d.Name]
		if !ok || rec.IPIPMode != d.Spec.IPIPMode || rec.VXLANMode != d.Spec.VXLANMode ||
			canonical(rec.CIDR) != canonical(d.Spec.CIDR) {
			return true
		}
	}
	return false
}

// observe lists the owner's edits of a pool calico-pilot knows (live after any patch) as findings.
// A disabled or node-restricted pool whose encapsulation the config changed is a conflict: the
// overlay switch reaches only pods that still get addresses from it.
func observe(d, l *calicov1.IPPool, rec Record, findings []Finding) ([]string, []Finding) {
	var changes []string
	if l.Spec.Disabled && !d.Spec.Disabled {
		changes = append(changes, "disabled")
		findings = append(findings, Finding{Pool: d.Name, Reason: ReasonDisabledByOwner, Conflict: true,
			Message: fmt.Sprintf("IP pool %s (%s) is disabled by the cluster's owner; calico-pilot keeps it disabled, so new pods get addresses from the owner's other pools", d.Name, l.Spec.CIDR)})
	}
	if l.Spec.NodeSelector != d.Spec.NodeSelector && !(l.Spec.NodeSelector == "" && d.Spec.NodeSelector == "all()") {
		changes = append(changes, "nodeSelector")
		findings = append(findings, Finding{Pool: d.Name, Reason: ReasonNodeSelectorChanged, Conflict: true,
			Message: fmt.Sprintf("IP pool %s has nodeSelector %q set by the cluster's owner (the configuration would use %q); it is kept", d.Name, l.Spec.NodeSelector, d.Spec.NodeSelector)})
	}
	if l.Spec.IPIPMode != rec.IPIPMode || l.Spec.VXLANMode != rec.VXLANMode {
		changes = append(changes, "encapsulation")
		findings = append(findings, Finding{Pool: d.Name, Reason: ReasonEncapsulationChanged,
			Message: fmt.Sprintf("IP pool %s has ipipMode %q and vxlanMode %q set by the cluster's owner (the configuration asks for %q and %q); kept until the configuration changes them", d.Name, l.Spec.IPIPMode, l.Spec.VXLANMode, rec.IPIPMode, rec.VXLANMode)})
	}
	sort.Strings(changes)
	return changes, findings
}

// allocating says whether a desired pool hands out addresses (the no-SNAT node pool never does).
func allocating(p *calicov1.IPPool) bool { return !p.Spec.Disabled }

// familyPools are the names of live pools of p's IP family that could stand in for it: every pool of
// the family (disabled ones count, as for calico-node) except the non-allocating pools calico-pilot
// itself recorded.
func familyPools(live []calicov1.IPPool, p *calicov1.IPPool, recs map[string]Record) []string {
	fam := family(p.Spec.CIDR)
	var names []string
	for i := range live {
		l := &live[i]
		if family(l.Spec.CIDR) != fam {
			continue
		}
		if _, ours := recs[l.Name]; ours && l.Spec.Disabled && l.Spec.DisableBGPExport {
			continue
		}
		names = append(names, l.Name)
	}
	sort.Strings(names)
	return names
}

// family is "IPv4", "IPv6" or "" for an unparsable CIDR.
func family(cidr string) string {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return ""
	}
	if p.Addr().Is4() {
		return "IPv4"
	}
	return "IPv6"
}

// canonical returns the masked form of a CIDR (the input when it does not parse).
func canonical(cidr string) string {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return cidr
	}
	return p.Masked().String()
}

// AdoptAsConfigured is for a takeover whose configuration states the pools' encapsulation (apply
// --adopt, where the settings the file leaves out are those that run): a pool Decide adopts in res
// whose live encapsulation differs from the configuration's gets that encapsulation at once (the
// owner asked for it, and the plan shows it), instead of being recorded as it runs and patched by
// the next sync, which no plan of the adoption would have shown.
func AdoptAsConfigured(res Result, desired, live []calicov1.IPPool) Result {
	wanted := make(map[string]*calicov1.IPPool, len(desired))
	for i := range desired {
		wanted[desired[i].Name] = &desired[i]
	}
	liveByName := make(map[string]*calicov1.IPPool, len(live))
	for i := range live {
		liveByName[live[i].Name] = &live[i]
	}
	for i := range res.Records {
		r := &res.Records[i]
		d, l := wanted[r.Name], liveByName[r.Name]
		if !r.Adopted || d == nil || l == nil || !adoptedNow(res, r.Name) {
			continue
		}
		if l.Spec.IPIPMode != d.Spec.IPIPMode || l.Spec.VXLANMode != d.Spec.VXLANMode {
			res.Actions = append(res.Actions, Action{Kind: ActionPatchEncapsulation, Name: r.Name, IPIPMode: d.Spec.IPIPMode, VXLANMode: d.Spec.VXLANMode})
			r.IPIPMode, r.VXLANMode = d.Spec.IPIPMode, d.Spec.VXLANMode
		}
	}
	return res
}

// adoptedNow says whether Decide adopted the pool in this result (its ReasonAdopted finding).
func adoptedNow(res Result, name string) bool {
	for _, f := range res.Findings {
		if f.Pool == name && f.Reason == ReasonAdopted {
			return true
		}
	}
	return false
}

// AdoptAsTheyRun is for a takeover whose configuration does not state the pools' encapsulation: a
// pool Decide adopts in res keeps its live encapsulation as the owner's setting, and the record holds
// the configuration's, so that no later sync takes the configuration's default for a change of it
// (the pool changes only when the configuration does).
func AdoptAsTheyRun(res Result, desired []calicov1.IPPool) Result {
	wanted := make(map[string]*calicov1.IPPool, len(desired))
	for i := range desired {
		wanted[desired[i].Name] = &desired[i]
	}
	for i := range res.Records {
		r := &res.Records[i]
		if d := wanted[r.Name]; d != nil && r.Adopted && adoptedNow(res, r.Name) {
			r.IPIPMode, r.VXLANMode = d.Spec.IPIPMode, d.Spec.VXLANMode
		}
	}
	return res
}
