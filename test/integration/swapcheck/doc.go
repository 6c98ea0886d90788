// Package swapcheck tests `calico-pilot swap-check` against a real API server holding Networks,
// Clusters and ManagedResources, some last reconciled by a reference-shaped ManagedResource.
package swapcheck
