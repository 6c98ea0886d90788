package testenv

import (
	"path/filepath"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// CRDSet is a directory of CRD manifests in this repository, relative to the repository root.
type CRDSet string

const (
	// GardenerCRDs are the test-only CRDs generated from our Gardener subsets: Network, Cluster,
	// DNSRecord and ManagedResource (a real seed serves Gardener's own).
	GardenerCRDs CRDSet = "test/integration/crds/gardener"
	// MonitoringCRDs is the prometheus-operator ScrapeConfig CRD the controller writes seed objects of.
	MonitoringCRDs CRDSet = "test/integration/crds/monitoring"
	// CalicoCRDs are Calico's crd.projectcalico.org/v1 CRDs generated from api/projectcalico/v1, with
	// the AdminNetworkPolicy and BaselineAdminNetworkPolicy CRDs Calico ships.
	CalicoCRDs CRDSet = "api/projectcalico/crds"
)

// CRDDirectories returns the absolute paths of sets, in the given order, for
// Options.CRDDirectoryPaths.
func CRDDirectories(sets ...CRDSet) []string {
	root := RepoRoot()
	dirs := make([]string, len(sets))
	for i, s := range sets {
		dirs[i] = filepath.Join(root, filepath.FromSlash(string(s)))
	}
	return dirs
}

// RenderedCalicoCRDs returns the 24 Calico CRDs exactly as calico-pilot renders them into every shoot
// (labels and all), for Options.CRDs of suites that check what Calico's components do with them.
func RenderedCalicoCRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	return RenderedCalicoCRDsFor(calicoversion.Default().Unrecorded().Release)
}
