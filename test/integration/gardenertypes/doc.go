// Package gardenertypes installs the test CRDs generated from our Gardener wire types
// (test/integration/crds/gardener) into a real kube-apiserver and checks that Network, Cluster,
// DNSRecord and ManagedResource objects round-trip through it, spec and status subresource, and
// that the schema refuses what Gardener's schema refuses.
package gardenertypes
