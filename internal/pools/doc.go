// Package pools decides what calico-pilot does to the IP pools of a cluster. IP pools belong to the
// cluster's owner: calico-pilot creates the pools its config needs once, when it never created them
// before and the cluster has no pool of that family, and afterwards changes only the fields it owns
// (the encapsulation modes) and only when its config changes them. An owner's disable, node selector,
// extra pools or deletion of a pool are never reverted; they become findings that the controller
// reports as a condition on the Network.
//
// The package is pure: Decide takes the desired pools (from the rendered manifest), the live pools
// and the record of what calico-pilot created (from the Network's provider status) and returns
// actions, the new record and findings. The census and migration checks for `pools migrate` and
// `plan` live here too. docs/ippools.md explains the design.
package pools
