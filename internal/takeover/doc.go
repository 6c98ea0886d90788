// Package takeover reads, from the manifest the reference extension deployed for a shoot, what
// calico-pilot renders unchanged when it takes the shoot over in Reference compatibility mode: the
// values of the calico-node pod template it cannot derive itself (the checksum annotation of the
// reference's calico-config, the commands of its helper containers). Rendering them as they are keeps
// the takeover from rolling calico-node on every shoot (issue 20 item 4; docs/compatibility.md).
package takeover
