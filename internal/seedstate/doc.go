// Package seedstate reads what a seed holds for the shoots of one networking type: every Network,
// the Cluster of its control-plane namespace (with the embedded Shoot decoded) and the data of the
// deployed ManagedResource's secrets, as the resource manager reads them. It reads from a live seed
// (a client) or from objects read from files, and assembles both the same way.
//
// `calico-pilot swap-check` uses it to compare the deployed manifest with what calico-pilot would
// deploy; the upgrade `plan` is meant to reuse it.
package seedstate
