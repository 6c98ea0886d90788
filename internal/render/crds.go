package render

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

// CRDs returns the shoot's static CustomResourceDefinitions (Calico's and the policy API's, as
// generated from our types): copies labelled as Gardener system components with TypeMeta set.
// They do not depend on Options, so callers render and serialize them once.
func CRDs(crds []*apiextensionsv1.CustomResourceDefinition) ([]client.Object, error) {
	out := make([]client.Object, 0, len(crds))
	for i, c := range crds {
		if c == nil || c.Name == "" {
			return nil, fmt.Errorf("rendering CRDs: CRD %d has no name", i)
		}
		cp := c.DeepCopy()
		cp.TypeMeta = typeMeta("apiextensions.k8s.io/v1", "CustomResourceDefinition")
		// Server-populated fields never go into a manifest.
		cp.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
		cp.CreationTimestamp.Reset()
		cp.ResourceVersion, cp.UID, cp.ManagedFields = "", "", nil
		if cp.Labels == nil {
			cp.Labels = map[string]string{}
		}
		cp.Labels[extensionsv1alpha1.LabelGardenerRole] = "system-component"
		out = append(out, cp)
	}
	return out, nil
}
