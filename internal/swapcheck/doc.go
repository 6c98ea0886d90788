// Package swapcheck is the pre-flight of swapping calico-pilot in for the reference extension
// (`calico-pilot swap-check`): for each shoot it says whether calico-pilot would reconcile its
// config, which fields are contradictory or ignored and what is deployed for them, and, with the
// deployed ManagedResource, the object-level diff between what runs and what calico-pilot would
// deploy (internal/manifestdiff), with the restarts of calico-node and typha called out.
package swapcheck
