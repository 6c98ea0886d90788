package v1_test

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"

	projectcalicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
)

// TestAddToSchemeRegistersAllKinds checks that exactly the 22 Calico kinds and their lists are
// registered under crd.projectcalico.org/v1 (besides the meta types every group version gets).
func TestAddToSchemeRegistersAllKinds(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := projectcalicov1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	kinds := []string{
		"BGPConfiguration", "BGPFilter", "BGPPeer", "BlockAffinity", "CalicoNodeStatus", "ClusterInformation",
		"FelixConfiguration", "GlobalNetworkPolicy", "GlobalNetworkSet", "HostEndpoint", "IPAMBlock", "IPAMConfig",
		"IPAMHandle", "IPPool", "IPReservation", "KubeControllersConfiguration", "NetworkPolicy", "NetworkSet",
		"StagedGlobalNetworkPolicy", "StagedKubernetesNetworkPolicy", "StagedNetworkPolicy", "Tier",
	}
	var want []string
	for _, k := range kinds {
		want = append(want, k, k+"List")
	}
	sort.Strings(want)
	metaKinds := map[string]bool{
		"CreateOptions": true, "DeleteOptions": true, "GetOptions": true, "ListOptions": true,
		"PatchOptions": true, "UpdateOptions": true, "WatchEvent": true,
	}
	var got []string
	for gvk := range scheme.AllKnownTypes() {
		// metav1.AddToGroupVersion also registers the unversioned meta kinds (Status, APIGroup, ...)
		// and an internal WatchEvent; only the Calico group version is of interest here.
		if gvk.Group != "crd.projectcalico.org" || gvk.Version != "v1" {
			continue
		}
		if !metaKinds[gvk.Kind] {
			got = append(got, gvk.Kind)
		}
	}
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("registered kinds (-want +got):\n%s", diff)
	}
}
