package plan

import (
	"fmt"
	"sort"
	"strings"

	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/manifestdiff"
	"github.com/calico-pilot/calico-pilot/internal/pools"
)

// CRDState is what the live cluster says about one CRD.
type CRDState struct {
	// StoredVersions is status.storedVersions: versions objects may still be stored in.
	StoredVersions []string
	// Objects is how many objects of the CRD exist.
	Objects int
	// FieldUse counts, per dotted field path ("spec.namespaceSelector"), the objects that set it.
	FieldUse map[string]int
}

// Live is the live cluster's state; nil fields mean "not known" (plan from the seed only).
type Live struct {
	Pools  []calicov1.IPPool
	Blocks []calicov1.IPAMBlock
	CRDs   map[string]CRDState
}

// Blocker is a change plan refuses.
type Blocker struct {
	Object  string `json:"object"`
	Message string `json:"message"`
}

// ChangedCRDs are the CRDs a diff adds, removes or changes: those whose stored objects the live
// checks count.
func ChangedCRDs(d *manifestdiff.Diff) []string {
	var out []string
	for _, o := range d.Objects {
		if o.ID.Kind == "CustomResourceDefinition" {
			out = append(out, o.ID.Name)
		}
	}
	return out
}

// Blockers returns what refuses the diff (classified or not), sorted by object. live may be nil.
func Blockers(d *manifestdiff.Diff, live *Live) []Blocker {
	b := blockerScan{live: live, livePools: map[string]*calicov1.IPPool{}}
	if live != nil {
		for i := range live.Pools {
			b.livePools[live.Pools[i].Name] = &live.Pools[i]
		}
	}
	for _, o := range d.Objects {
		b.change(o)
	}
	if d.New != nil {
		for _, obj := range d.New.Objects() {
			b.target(d, obj)
		}
	}
	sort.SliceStable(b.out, func(i, j int) bool { return b.out[i].Object < b.out[j].Object })
	return b.out
}

// blockerScan is Blockers' work: the live cluster (live may be nil), its pools by name, the
// blockers found.
type blockerScan struct {
	live      *Live
	livePools map[string]*calicov1.IPPool
	out       []Blocker
}

func (b *blockerScan) add(o, format string, args ...any) {
	b.out = append(b.out, Blocker{Object: o, Message: fmt.Sprintf(format, args...)})
}

// change checks one changed or removed object of the diff.
func (b *blockerScan) change(o *manifestdiff.ObjectDiff) {
	switch {
	case isPool(o.ID) && o.Op == manifestdiff.OpChanged:
		b.poolImmutable(o)
	case isPool(o.ID) && o.Op == manifestdiff.OpRemoved && !ignored(o.Old):
		b.poolRemoved(o)
	case isCRD(o.ID) && o.Op == manifestdiff.OpRemoved:
		b.crdRemoved(o)
	case isCRD(o.ID) && o.Op == manifestdiff.OpChanged && b.live != nil:
		b.crdFieldsDropped(o)
	}
}

// poolImmutable: a pool's cidr and blockSize cannot change.
func (b *blockerScan) poolImmutable(o *manifestdiff.ObjectDiff) {
	for _, c := range o.Changes {
		for _, f := range []string{"cidr", "blockSize"} {
			if c.Path == "spec."+f {
				b.add(o.ID.Short(), "IP pool %s: spec.%s cannot change (%v -> %v); Calico keeps the old value and its IPAM blocks; create a new pool and move to it with `calico-pilot pools migrate`", o.ID.Name, f, c.Old, c.New)
			}
		}
	}
}

// poolRemoved: a live pool the resource manager would delete must hold no addresses.
func (b *blockerScan) poolRemoved(o *manifestdiff.ObjectDiff) {
	p := b.livePools[o.ID.Name]
	if p == nil {
		return
	}
	c, err := pools.TakeCensus(p, b.live.Blocks)
	switch {
	case err != nil:
		// A census that could not run is not a pass: the pool may hold addresses.
		b.add(o.ID.Short(), "IP pool %s (%s) would be deleted by the resource manager, and its allocations could not be counted: %v", o.ID.Name, p.Spec.CIDR, err)
	case c.Allocations() > 0:
		b.add(o.ID.Short(), "IP pool %s (%s) would be deleted by the resource manager but still holds %d address(es) (%d pod(s), %d tunnel address(es)) on %d node(s); drain it first (calico-pilot pools migrate)", o.ID.Name, p.Spec.CIDR, c.Allocations(), c.Workloads, c.Tunnels, len(c.Nodes))
	}
}

// crdRemoved: a CRD is never deleted, it takes its objects with it.
func (b *blockerScan) crdRemoved(o *manifestdiff.ObjectDiff) {
	n := "every"
	if b.live != nil {
		if st, ok := b.live.CRDs[o.ID.Name]; ok {
			n = fmt.Sprintf("its %d", st.Objects)
		}
	}
	b.add(o.ID.Short(), "CRD %s would be deleted, and with it %s stored object(s); calico-pilot never deletes Calico CRDs except with the whole Network", o.ID.Name, n)
}

// crdFieldsDropped: a schema field stored objects set must not be dropped (it would be pruned).
func (b *blockerScan) crdFieldsDropped(o *manifestdiff.ObjectDiff) {
	st := b.live.CRDs[o.ID.Name]
	for _, c := range o.Changes {
		if c.Op != manifestdiff.OpRemoved {
			continue
		}
		if field := schemaField(c.Fields()); field != "" && st.FieldUse[field] > 0 {
			b.add(o.ID.Short(), "CRD %s: field %s is dropped from the schema but %d stored object(s) set it; it would be pruned from them", o.ID.Name, field, st.FieldUse[field])
		}
	}
}

// target checks one object of the target: a pool the owner disabled that would be re-enabled, a
// CRD that no longer serves the version objects are stored in.
func (b *blockerScan) target(d *manifestdiff.Diff, obj *manifestdiff.Object) {
	switch {
	case isPool(obj.ID) && !ignored(obj):
		p := b.livePools[obj.ID.Name]
		disabled, _ := lookup(obj.Content, "spec", "disabled").(bool)
		if p != nil && p.Spec.Disabled && !disabled {
			b.add(obj.ID.Short(), "IP pool %s is disabled in the cluster, and the target lists it enabled as a resource-manager object: the next sync would re-enable it; keep the owner's disable (resources.gardener.cloud/mode: Ignore, as calico-pilot renders pools)", obj.ID.Name)
		}
	case isCRD(obj.ID):
		b.out = append(b.out, storageBlockers(d, obj, b.live)...)
	}
}

// storageBlockers: objects stored in a version the target CRD does not serve can no longer be read
// (a downgrade across a storage change).
func storageBlockers(d *manifestdiff.Diff, obj *manifestdiff.Object, live *Live) []Blocker {
	served := map[string]bool{}
	var names []string
	versions, _ := lookup(obj.Content, "spec", "versions").([]any)
	for _, v := range versions {
		m, _ := v.(map[string]any)
		name, _ := m["name"].(string)
		if s, _ := m["served"].(bool); s && name != "" {
			served[name] = true
			names = append(names, name)
		}
	}
	var stored []string
	if live != nil {
		if st, ok := live.CRDs[obj.ID.Name]; ok {
			stored = st.StoredVersions
		}
	}
	if stored == nil && d.Old != nil {
		if old := d.Old.Get(obj.ID); old != nil {
			stored = storageVersions(old)
		}
	}
	var out []Blocker
	for _, v := range stored {
		if !served[v] {
			sort.Strings(names)
			out = append(out, Blocker{Object: obj.ID.Short(), Message: fmt.Sprintf("CRD %s: objects are stored as %s, which the target does not serve (it serves %s); a downgrade across a CRD storage change would make them unreadable", obj.ID.Name, v, strings.Join(names, ", "))})
		}
	}
	return out
}

func storageVersions(o *manifestdiff.Object) []string {
	var out []string
	versions, _ := lookup(o.Content, "spec", "versions").([]any)
	for _, v := range versions {
		m, _ := v.(map[string]any)
		if s, _ := m["storage"].(bool); s {
			name, _ := m["name"].(string)
			out = append(out, name)
		}
	}
	return out
}

// schemaField turns the map keys of a removed schema property into a dotted field path:
// spec versions [] schema openAPIV3Schema properties spec properties foo -> "spec.foo".
func schemaField(fields []string) string {
	i := -1
	for k, f := range fields {
		if f == "openAPIV3Schema" {
			i = k
		}
	}
	if i < 0 {
		return ""
	}
	var path []string
	rest := fields[i+1:]
	for k := 0; k+1 < len(rest); k += 2 {
		if rest[k] != "properties" {
			return ""
		}
		path = append(path, rest[k+1])
	}
	if len(path) == 0 || len(rest)%2 != 0 {
		return ""
	}
	return strings.Join(path, ".")
}

func isPool(id manifestdiff.ObjectID) bool {
	return id.Kind == "IPPool" && id.Group == "crd.projectcalico.org"
}

func isCRD(id manifestdiff.ObjectID) bool {
	return id.Kind == "CustomResourceDefinition" && id.Group == "apiextensions.k8s.io"
}

func ignored(o *manifestdiff.Object) bool {
	if o == nil {
		return false
	}
	v, _ := lookup(o.Content, "metadata", "annotations", resourcesv1alpha1.AnnotationMode).(string)
	return v == resourcesv1alpha1.ModeIgnore
}

func lookup(m map[string]any, keys ...string) any {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}
