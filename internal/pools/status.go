package pools

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
)

// FromStatus converts the provider status records.
func FromStatus(in []calicov1alpha1.IPPoolRecord) []Record {
	out := make([]Record, 0, len(in))
	for _, r := range in {
		out = append(out, Record{Name: r.Name, CIDR: r.CIDR, Created: r.Created.UTC(), Adopted: r.Adopted,
			IPIPMode: calicov1.IPIPMode(r.IPIPMode), VXLANMode: calicov1.VXLANMode(r.VXLANMode),
			OwnerChanges: append([]string(nil), r.OwnerChanges...)})
	}
	return out
}

// ToStatus converts records for the provider status.
func ToStatus(in []Record) []calicov1alpha1.IPPoolRecord {
	var out []calicov1alpha1.IPPoolRecord
	for _, r := range in {
		out = append(out, calicov1alpha1.IPPoolRecord{Name: r.Name, CIDR: r.CIDR, Created: metav1.NewTime(r.Created), Adopted: r.Adopted,
			IPIPMode: string(r.IPIPMode), VXLANMode: string(r.VXLANMode), OwnerChanges: append([]string(nil), r.OwnerChanges...)})
	}
	return out
}

// Desired returns the IP pools among rendered objects, sorted by name (the manifest's order),
// without the resource-manager annotations (they are for the ManagedResource, not for the
// cluster). The objects are not changed: the pools are copies.
func Desired(objs []client.Object) []calicov1.IPPool {
	var out []calicov1.IPPool
	for _, o := range objs {
		rendered, ok := o.(*calicov1.IPPool)
		if !ok {
			continue
		}
		p := *rendered.DeepCopy()
		delete(p.Annotations, resourcesv1alpha1.AnnotationMode)
		if len(p.Annotations) == 0 {
			p.Annotations = nil
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b calicov1.IPPool) int { return strings.Compare(a.Name, b.Name) })
	return out
}
