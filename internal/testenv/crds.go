package testenv

import "path/filepath"

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
