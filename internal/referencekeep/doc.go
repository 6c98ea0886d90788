// Package referencekeep reads, from the manifest the reference extension deployed for a shoot, what
// calico-pilot renders unchanged when calico-pilot is swapped in for the reference in Reference
// compatibility mode: the values of the calico-node pod template it cannot derive itself (the
// checksum annotation of the reference's calico-config, the commands of its helper containers).
// Keeping them as they are keeps the swap-in from rolling calico-node on every shoot
// (docs/compatibility.md).
package referencekeep
