package install

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

// Kept is a setting the file leaves out that is taken from what runs.
type Kept struct {
	// Field is where the file would state it ("networkConfig.ipam.type").
	Field string
	// Value is what runs; Source where it was read.
	Value, Source string
}

func (k Kept) String() string { return fmt.Sprintf("%s: %s (kept: %s)", k.Field, k.Value, k.Source) }

// Contradiction is a setting the file states otherwise than what runs.
type Contradiction struct {
	// Field is the file's field; File its value there; Running what runs and where it was read.
	Field, File, Running string
	// Effect says what the change does to the running cluster.
	Effect string
	// Blocker is true for a change Calico cannot make live (the IPAM type with addresses handed out,
	// a pool's CIDR or block size): apply refuses it unless accepted by Field.
	Blocker bool
}

func (c Contradiction) String() string {
	return fmt.Sprintf("%s: the file says %s, the cluster runs %s: %s", c.Field, c.File, c.Running, c.Effect)
}

// Judgement is what Keep makes of a file's NetworkConfig against what runs.
type Judgement struct {
	// Config is the file's NetworkConfig with the settings it leaves out taken from what runs.
	Config *calicov1alpha1.NetworkConfig
	// Kept are those settings; Contradictions the file's settings that differ from what runs.
	Kept           []Kept
	Contradictions []Contradiction
	// StatesEncapsulation is true when the file states the pools' encapsulation itself (ipv4.pool,
	// ipv4.mode, ipip, vxlan, or the overlay off): a pool taken over then gets it. Otherwise a taken-over
	// pool keeps the encapsulation it runs with (pools.AdoptAsTheyRun), also one a NetworkConfig cannot
	// state.
	StatesEncapsulation bool
	// Recorded is a NetworkConfig of the kept settings only: what an adoption records, so that later
	// applies of a file that is still silent on them keep them too (FillFrom).
	Recorded *calicov1alpha1.NetworkConfig
	// unstated is true when the running encapsulation could not be stated in the config.
	unstated bool
}

// Keep takes the settings the file's NetworkConfig leaves out from what runs (decision 17: where the
// file is silent, what runs is kept): the CNI IPAM, the backend, the IPv4 pools' encapsulation, the
// veth MTU and Typha. A setting is taken only when the NetworkConfig rules accept the result (a
// setting the file's other settings imply is not overridden: that is a contradiction). What the file
// states and what runs disagree on is listed as a contradiction naming both. path is where the
// NetworkConfig is in the file; families are the cluster's IP families. cfg is not changed.
func (in *Install) Keep(cfg *calicov1alpha1.NetworkConfig, families []string, path *field.Path) Judgement {
	j := Judgement{Config: cfg.DeepCopy(), Recorded: &calicov1alpha1.NetworkConfig{}, StatesEncapsulation: statesEncapsulation(cfg)}
	if !in.Found() {
		return j
	}
	fam := familiesOf(families)
	k := keeper{in: in, j: &j, fam: fam, path: path}
	k.ipam()
	k.backend()
	k.pool()
	k.mtu()
	k.typha()
	k.contradictions()
	return j
}

// statesEncapsulation says whether cfg states the IPv4 pool's encapsulation.
func statesEncapsulation(cfg *calicov1alpha1.NetworkConfig) bool {
	return (cfg.IPv4 != nil && (cfg.IPv4.Pool != nil || cfg.IPv4.Mode != nil)) || cfg.IPIP != nil || cfg.VXLAN != nil ||
		(cfg.Overlay != nil && !cfg.Overlay.Enabled)
}

type keeper struct {
	in   *Install
	j    *Judgement
	fam  rules.Families
	path *field.Path
}

func familiesOf(families []string) rules.Families {
	set := rules.FamilySet{IPv4: slices.Contains(families, "IPv4"), IPv6: slices.Contains(families, "IPv6")}
	if !set.IPv4 && !set.IPv6 {
		set.IPv4 = true
	}
	return rules.Families{Requested: set, Active: set}
}

// try sets a setting with set and keeps it when the rules accept the config; else it is undone.
func (k *keeper) try(set func(*calicov1alpha1.NetworkConfig), kept Kept) bool {
	trial := k.j.Config.DeepCopy()
	set(trial)
	if _, errs := rules.NetworkConfig(trial, k.fam, rules.NodeNetworks{}, k.path); len(errs) > 0 {
		if _, before := rules.NetworkConfig(k.j.Config, k.fam, rules.NodeNetworks{}, k.path); len(before) == 0 {
			return false
		}
	}
	k.j.Config = trial
	set(k.j.Recorded)
	k.j.Kept = append(k.j.Kept, kept)
	return true
}

// FillFrom is Keep for an install adopted before: the settings recorded at the adoption (Judgement.
// Recorded) that the file still leaves out are taken, so that a re-apply of the adoption's file keeps
// what the adoption kept; what the file states wins. source says where the record is.
func FillFrom(cfg, recorded *calicov1alpha1.NetworkConfig, source string, path *field.Path) Judgement {
	j := Judgement{Config: cfg.DeepCopy(), Recorded: recorded}
	if recorded == nil {
		return j
	}
	c := j.Config
	add := func(f string, v any) {
		j.Kept = append(j.Kept, Kept{Field: path.Child(f).String(), Value: fmt.Sprint(v), Source: source})
	}
	if recorded.IPAM != nil && c.IPAM == nil {
		c.IPAM = recorded.IPAM.DeepCopy()
		add("ipam", c.IPAM.Type)
	}
	if recorded.Backend != nil && c.Backend == nil && c.Overlay == nil {
		c.Backend = ptr.To(*recorded.Backend)
		add("backend", *c.Backend)
	}
	if recorded.VXLAN != nil && c.VXLAN == nil && c.Backend == nil {
		c.VXLAN = recorded.VXLAN.DeepCopy()
		add("vxlan", "enabled")
	}
	if r := recorded.IPv4; r != nil && c.IPIP == nil && (c.IPv4 == nil || (c.IPv4.Pool == nil && c.IPv4.Mode == nil)) {
		if c.IPv4 == nil {
			c.IPv4 = &calicov1alpha1.IPv4{}
		}
		c.IPv4.Pool, c.IPv4.Mode = r.Pool, r.Mode
		add("ipv4", fmt.Sprintf("pool %s, mode %s", ptr.Deref(r.Pool, ""), ptr.Deref(r.Mode, "")))
	}
	if recorded.VethMTU != nil && c.VethMTU == nil {
		c.VethMTU = ptr.To(*recorded.VethMTU)
		add("vethMTU", *c.VethMTU)
	}
	if recorded.Typha != nil && c.Typha == nil {
		c.Typha = recorded.Typha.DeepCopy()
		add("typha", fmt.Sprintf("enabled %v", c.Typha.Enabled))
	}
	return j
}

func (k *keeper) field(p ...string) string { return k.path.Child(p[0], p[1:]...).String() }

func (k *keeper) ipam() {
	ipam := k.in.IPAM
	if k.j.Config.IPAM != nil || (ipam.Type != string(calicov1alpha1.IPAMCalico) && ipam.Type != string(calicov1alpha1.IPAMHostLocal)) {
		return
	}
	value := ipam.Type
	if ipam.Type == string(calicov1alpha1.IPAMHostLocal) && ipam.Subnet != "" {
		value += " with subnet " + ipam.Subnet
	}
	k.try(func(c *calicov1alpha1.NetworkConfig) {
		c.IPAM = &calicov1alpha1.IPAM{Type: calicov1alpha1.IPAMType(ipam.Type)}
		if ipam.Type == string(calicov1alpha1.IPAMHostLocal) && ipam.Subnet != "" {
			c.IPAM.CIDR = ptr.To(ipam.Subnet)
		}
	}, Kept{Field: k.field("ipam"), Value: value, Source: ipam.Source})
}

func (k *keeper) backend() {
	b := calicov1alpha1.Backend(k.in.Backend)
	if !slices.Contains(calicov1alpha1.Backends(), b) {
		return
	}
	cfg := k.j.Config
	switch {
	case cfg.Backend == nil && cfg.Overlay == nil:
		k.try(func(c *calicov1alpha1.NetworkConfig) { c.Backend = ptr.To(b) }, Kept{Field: k.field("backend"), Value: string(b), Source: k.in.BackendSource})
	case cfg.Backend == nil && cfg.Overlay != nil && cfg.Overlay.Enabled && cfg.VXLAN == nil && b == calicov1alpha1.BackendVXLAN:
		// overlay.enabled implies bird unless VXLAN is on: the running vxlan backend is kept so.
		k.try(func(c *calicov1alpha1.NetworkConfig) { c.VXLAN = &calicov1alpha1.VXLAN{Enabled: true} },
			Kept{Field: k.field("vxlan", "enabled"), Value: "true (backend vxlan)", Source: k.in.BackendSource})
	}
}

// DefaultIPv4Pool is the name of the IPv4 pool calico-node creates from its environment, which
// calico-pilot's render names its own pool too.
const DefaultIPv4Pool = "default-ipv4-ippool"

// RunningEncapsulation is the encapsulation of the IPv4 pools that run (ipip or vxlan, and the mode;
// ipip with Never when none encapsulates): that of the pool named DefaultIPv4Pool when it exists
// (the pool the render describes, enabled or not, so that taking it over leaves it as it is), else
// that of the enabled IPv4 pools. ok is false when there is none, or the enabled ones disagree.
func (in *Install) RunningEncapsulation() (pool calicov1alpha1.Pool, mode calicov1alpha1.PoolMode, source string, ok bool) {
	for _, p := range in.Pools {
		if p.Name == DefaultIPv4Pool && isIPv4(p.Spec.CIDR) {
			e := encapsulationOf(p)
			return e.pool, e.mode, "IP pool " + p.Name, true
		}
	}
	var seen []encapsulation
	var names []string
	for _, p := range in.Pools {
		if p.Spec.Disabled || !isIPv4(p.Spec.CIDR) {
			continue
		}
		if e := encapsulationOf(p); !slices.Contains(seen, e) {
			seen = append(seen, e)
		}
		names = append(names, p.Name)
	}
	if len(seen) != 1 {
		return "", "", "", false
	}
	return seen[0].pool, seen[0].mode, "the enabled IPv4 pools " + strings.Join(names, ", "), true
}

type encapsulation struct {
	pool calicov1alpha1.Pool
	mode calicov1alpha1.PoolMode
}

func encapsulationOf(p calicov1.IPPool) encapsulation {
	switch {
	case p.Spec.VXLANMode != "" && p.Spec.VXLANMode != calicov1.VXLANModeNever:
		return encapsulation{calicov1alpha1.PoolVXLAN, calicov1alpha1.PoolMode(p.Spec.VXLANMode)}
	case p.Spec.IPIPMode != "" && p.Spec.IPIPMode != calicov1.IPIPModeNever:
		return encapsulation{calicov1alpha1.PoolIPIP, calicov1alpha1.PoolMode(p.Spec.IPIPMode)}
	}
	return encapsulation{calicov1alpha1.PoolIPIP, calicov1alpha1.PoolModeNever}
}

func isIPv4(cidr string) bool {
	p, err := netip.ParsePrefix(cidr)
	return err == nil && p.Addr().Is4()
}

func (k *keeper) pool() {
	if k.j.StatesEncapsulation || !k.fam.Requested.IPv4 {
		return
	}
	pool, mode, src, ok := k.in.RunningEncapsulation()
	if !ok {
		return
	}
	value := fmt.Sprintf("pool %s, mode %s", pool, mode)
	if !k.try(func(c *calicov1alpha1.NetworkConfig) {
		if c.IPv4 == nil {
			c.IPv4 = &calicov1alpha1.IPv4{}
		}
		c.IPv4.Pool, c.IPv4.Mode = ptr.To(pool), ptr.To(mode)
	}, Kept{Field: k.field("ipv4"), Value: value, Source: src}) {
		// A NetworkConfig cannot state it (VXLAN with CrossSubnet, say): the pool keeps it as its own.
		k.j.Kept = append(k.j.Kept, Kept{Field: DefaultIPv4Pool + " encapsulation", Value: value + ", which a NetworkConfig cannot state", Source: src + ": kept in the pool"})
		k.j.unstated = true
	}
}

func (k *keeper) mtu() {
	if k.j.Config.VethMTU != nil || k.in.VethMTU == "" || k.in.VethMTU == "0" {
		return
	}
	k.try(func(c *calicov1alpha1.NetworkConfig) { c.VethMTU = ptr.To(k.in.VethMTU) },
		Kept{Field: k.field("vethMTU"), Value: k.in.VethMTU, Source: fmt.Sprintf("%s/%s veth_mtu", k.in.Config.Namespace, k.in.Config.Name)})
}

func (k *keeper) typha() {
	t := k.in.Typha
	if k.j.Config.Typha != nil || !t.Known {
		return
	}
	k.try(func(c *calicov1alpha1.NetworkConfig) { c.Typha = &calicov1alpha1.Typha{Enabled: t.Enabled} },
		Kept{Field: k.field("typha", "enabled"), Value: fmt.Sprint(t.Enabled), Source: t.Source})
}

// contradictions compares what the kept config decides with what runs.
func (k *keeper) contradictions() {
	s, errs := rules.NetworkConfig(k.j.Config, k.fam, rules.NodeNetworks{}, k.path)
	if len(errs) > 0 {
		// Invalid configs are reported by validation, with their paths; nothing to compare.
		return
	}
	in := k.in
	if in.IPAM.Type != "" && string(s.IPAM.Type) != in.IPAM.Type {
		c := Contradiction{Field: k.field("ipam", "type"), File: string(s.IPAM.Type), Running: fmt.Sprintf("%s (%s)", in.IPAM.Type, in.IPAM.Source),
			Effect: "new pods would get addresses from the other IPAM, which does not know the addresses the running one handed out (duplicate pod IPs)"}
		switch {
		case in.IPAM.Type == string(calicov1alpha1.IPAMCalico) && in.Allocations() > 0:
			c.Blocker = true
			c.Effect += fmt.Sprintf("; calico-ipam's IPAM blocks hold %d address(es)", in.Allocations())
		case in.PodNetworkPods:
			c.Blocker = true
			c.Effect += "; pods on the pod network hold addresses of the running IPAM"
		}
		k.j.Contradictions = append(k.j.Contradictions, c)
	}
	if in.Backend != "" && string(s.Backend) != in.Backend {
		k.j.Contradictions = append(k.j.Contradictions, Contradiction{Field: k.field("backend"), File: string(s.Backend),
			Running: fmt.Sprintf("%s (%s)", in.Backend, in.BackendSource), Effect: "calico-node restarts on every node with the other backend; routes are re-learnt"})
	}
	if pool, mode, src, ok := in.RunningEncapsulation(); ok && !k.j.unstated && k.fam.Requested.IPv4 && (s.IPv4Pool.Mode != mode || (mode.Encapsulates() && s.IPv4Pool.Encapsulation != pool)) {
		k.j.Contradictions = append(k.j.Contradictions, Contradiction{Field: k.field("ipv4"),
			File:    fmt.Sprintf("pool %s, mode %s", s.IPv4Pool.Encapsulation, s.IPv4Pool.Mode),
			Running: fmt.Sprintf("pool %s, mode %s (%s)", pool, mode, src),
			Effect:  "the encapsulation of pod traffic changes on every node at once"})
	}
	if in.VethMTU != "" && s.VethMTU != in.VethMTU {
		k.j.Contradictions = append(k.j.Contradictions, Contradiction{Field: k.field("vethMTU"), File: s.VethMTU,
			Running: fmt.Sprintf("%s (%s/%s veth_mtu)", in.VethMTU, in.Config.Namespace, in.Config.Name), Effect: "calico-node restarts on every node; new pods get the other MTU"})
	}
	if t := in.Typha; t.Known && k.j.Config.Typha != nil && k.j.Config.Typha.Enabled != t.Enabled {
		k.j.Contradictions = append(k.j.Contradictions, Contradiction{Field: k.field("typha", "enabled"), File: fmt.Sprint(k.j.Config.Typha.Enabled),
			Running: fmt.Sprintf("%v (%s)", t.Enabled, t.Source), Effect: "calico-node restarts on every node to connect to the datastore another way"})
	}
}

// PoolContradictions compares the pools the render asks for with the live pools of the same name:
// a live pool that hands out addresses (enabled) with another CIDR or block size is a change Calico
// cannot make live. explicit is true when the file states the pod network (then it is a blocker;
// else the running pool is kept and the difference reported).
func (in *Install) PoolContradictions(desired []calicov1.IPPool, podCIDRField string, explicit bool) []Contradiction {
	var out []Contradiction
	for _, d := range desired {
		for _, l := range in.Pools {
			if l.Name != d.Name || l.Spec.Disabled {
				continue
			}
			sameCIDR := canonical(l.Spec.CIDR) == canonical(d.Spec.CIDR)
			sameBlock := d.Spec.BlockSize == 0 || l.Spec.BlockSize == 0 || d.Spec.BlockSize == l.Spec.BlockSize
			if sameCIDR && sameBlock {
				continue
			}
			c := Contradiction{Field: "IPPool " + d.Name, File: fmt.Sprintf("CIDR %s, block size %d (from %s)", d.Spec.CIDR, d.Spec.BlockSize, podCIDRField),
				Running: fmt.Sprintf("CIDR %s, block size %d", l.Spec.CIDR, l.Spec.BlockSize),
				Effect:  "Calico cannot change a pool's CIDR or block size in place: the pool is kept as it runs; to move, create a new pool and run `calico-pilot pools migrate`",
				Blocker: explicit}
			out = append(out, c)
		}
	}
	return out
}

func canonical(cidr string) string {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return cidr
	}
	return p.Masked().String()
}
