// Package heartbeat renews the Lease gardener-extension-heartbeat that gardenlet reads to decide whether
// health conditions reported by an extension are current (docs/gardener-integration.md §5.2). It is
// a controller-runtime Runnable: one loop, started once, renewing every interval.
package heartbeat
