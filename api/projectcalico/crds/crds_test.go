package crds_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/calico-pilot/calico-pilot/api/projectcalico/crds"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

func TestCustomResourceDefinitionsAreSortedAndComplete(t *testing.T) {
	got, err := crds.CustomResourceDefinitionsFor(crds.BaseSet)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, crd := range got {
		names = append(names, crd.Name)
	}
	want := []string{
		"adminnetworkpolicies.policy.networking.k8s.io",
		"baselineadminnetworkpolicies.policy.networking.k8s.io",
		"bgpconfigurations.crd.projectcalico.org",
		"bgpfilters.crd.projectcalico.org",
		"bgppeers.crd.projectcalico.org",
		"blockaffinities.crd.projectcalico.org",
		"caliconodestatuses.crd.projectcalico.org",
		"clusterinformations.crd.projectcalico.org",
		"felixconfigurations.crd.projectcalico.org",
		"globalnetworkpolicies.crd.projectcalico.org",
		"globalnetworksets.crd.projectcalico.org",
		"hostendpoints.crd.projectcalico.org",
		"ipamblocks.crd.projectcalico.org",
		"ipamconfigs.crd.projectcalico.org",
		"ipamhandles.crd.projectcalico.org",
		"ippools.crd.projectcalico.org",
		"ipreservations.crd.projectcalico.org",
		"kubecontrollersconfigurations.crd.projectcalico.org",
		"networkpolicies.crd.projectcalico.org",
		"networksets.crd.projectcalico.org",
		"stagedglobalnetworkpolicies.crd.projectcalico.org",
		"stagedkubernetesnetworkpolicies.crd.projectcalico.org",
		"stagednetworkpolicies.crd.projectcalico.org",
		"tiers.crd.projectcalico.org",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("CRD names (-want +got):\n%s", diff)
	}
}

// TestFilesMatchParsedCRDs checks that Files is in the same order as CustomResourceDefinitions and that
// each raw manifest decodes to the same CRD.
func TestFilesMatchParsedCRDs(t *testing.T) {
	parsed, err := crds.CustomResourceDefinitionsFor(crds.BaseSet)
	if err != nil {
		t.Fatal(err)
	}
	files, err := crds.Files()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(parsed) {
		t.Fatalf("%d files, %d parsed CRDs", len(files), len(parsed))
	}
	for i, f := range files {
		if f.Name != parsed[i].Name {
			t.Errorf("file %d is %s, parsed CRD %d is %s", i, f.Name, i, parsed[i].Name)
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(f.YAML, crd); err != nil {
			t.Fatalf("decoding %s: %v", f.Name, err)
		}
		if diff := cmp.Diff(parsed[i], crd); diff != "" {
			t.Errorf("%s: raw manifest and parsed CRD differ (-parsed +raw):\n%s", f.Name, diff)
		}
	}
}

// TestCallersGetCopies proves that changing a returned CRD or manifest does not change what the next
// caller gets.
func TestCallersGetCopies(t *testing.T) {
	first, err := crds.CustomResourceDefinitionsFor(crds.BaseSet)
	if err != nil {
		t.Fatal(err)
	}
	first[0].Name = "changed"
	first[0].Spec.Versions[0].Served = false
	files, err := crds.Files()
	if err != nil {
		t.Fatal(err)
	}
	original := bytes.Clone(files[0].YAML)
	files[0].YAML[0] = '#'

	second, err := crds.CustomResourceDefinitionsFor(crds.BaseSet)
	if err != nil {
		t.Fatal(err)
	}
	if second[0].Name != "adminnetworkpolicies.policy.networking.k8s.io" || !second[0].Spec.Versions[0].Served {
		t.Errorf("second call returned the first caller's modified CRD: name %q served %v", second[0].Name, second[0].Spec.Versions[0].Served)
	}
	againFiles, err := crds.Files()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(againFiles[0].YAML, original) {
		t.Error("second call to Files returned the first caller's modified bytes")
	}
}

// TestIPAMBlockAllocationsAcceptNull pins the one schema property hack/crdpatch adds: Calico IPAM
// writes null for free ordinals of spec.allocations.
func TestIPAMBlockAllocationsAcceptNull(t *testing.T) {
	all, err := crds.CustomResourceDefinitionsFor(crds.BaseSet)
	if err != nil {
		t.Fatal(err)
	}
	for _, crd := range all {
		if crd.Name != "ipamblocks.crd.projectcalico.org" {
			continue
		}
		items := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["allocations"].Items
		if items == nil || items.Schema == nil {
			t.Fatal("spec.allocations has no item schema")
		}
		if items.Schema.Type != "integer" || !items.Schema.Nullable {
			t.Errorf("spec.allocations items: type %q nullable %v, want integer and nullable", items.Schema.Type, items.Schema.Nullable)
		}
		return
	}
	t.Fatal("no ipamblocks CRD")
}

// TestEveryLineHasItsSet: the CRD set each line of the Calico catalogue names loads, and every
// embedded set is some line's (a set no line names is dead weight; a line without its set cannot be
// rendered).
func TestEveryLineHasItsSet(t *testing.T) {
	used := map[string]bool{}
	for _, line := range calicoversion.Default().Lines() {
		defs, err := crds.CustomResourceDefinitionsFor(line.CRDSet())
		if err != nil || len(defs) == 0 {
			t.Errorf("line %s: CRD set %q: %d CRDs, %v", line, line.CRDSet(), len(defs), err)
		}
		files, err := crds.FilesFor(line.CRDSet())
		if err != nil || len(files) != len(defs) {
			t.Errorf("line %s: %d files for %d CRDs, %v", line, len(files), len(defs), err)
		}
		used[line.CRDSet()] = true
	}
	for _, set := range crds.Sets() {
		if !used[set] {
			t.Errorf("CRD set %s is no line's", set)
		}
	}
	if !slices.Contains(crds.Sets(), crds.BaseSet) {
		t.Errorf("Sets() = %v lacks the base set %s", crds.Sets(), crds.BaseSet)
	}
}
