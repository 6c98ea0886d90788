package standalone

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPrunableNeverListsCRDsOrPools: of the objects the state says apply applied, those no longer
// rendered are deleted, except CRDs (a CRD takes its objects with it) and IP pools (the cluster
// owner's once created); what is still rendered stays.
func TestPrunableNeverListsCRDsOrPools(t *testing.T) {
	crd := ObjectRef{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "bgpfilters.crd.projectcalico.org"}
	pool := ObjectRef{APIVersion: "crd.projectcalico.org/v1", Kind: "IPPool", Name: "default-ipv4-ippool"}
	kept := ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: Namespace, Name: "calico-config"}
	gone := ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Namespace: Namespace, Name: "calico-typha"}
	got := prunable([]ObjectRef{crd, pool, kept, gone}, []ObjectRef{kept})
	if d := cmp.Diff([]ObjectRef{gone}, got); d != "" {
		t.Errorf("prunable (-want +got):\n%s", d)
	}
}
