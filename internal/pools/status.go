package pools

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/manifest"
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

// Desired returns the IP pools of a rendered manifest, without the resource-manager annotations
// (they are for the ManagedResource, not for the cluster).
func Desired(docs []manifest.Doc) ([]calicov1.IPPool, error) {
	var out []calicov1.IPPool
	for _, d := range docs {
		if d.Group != calicov1.SchemeGroupVersion.Group || d.Kind != "IPPool" {
			continue
		}
		var p calicov1.IPPool
		if err := json.Unmarshal(d.JSON, &p); err != nil {
			return nil, fmt.Errorf("decoding rendered IPPool %s: %w", d.Name, err)
		}
		delete(p.Annotations, resourcesv1alpha1.AnnotationMode)
		if len(p.Annotations) == 0 {
			p.Annotations = nil
		}
		out = append(out, p)
	}
	return out, nil
}
