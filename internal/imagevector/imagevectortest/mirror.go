// Package imagevectortest holds image vector overrides that tests of several packages share.
package imagevectortest

// MirroredLandscape is an override as a mirrored landscape runs the reference extension with it
// (docs/deployment.md "Mirrored landscapes"): calico-node pinned to its mirror's v3.31.6 without
// `version`, an entry for an image calico-pilot does not use, and calico-node pinned per Kubernetes
// version (another mirror for 1.34 and later).
const MirroredLandscape = `images:
- name: calico-node
  repository: example.org/mirror/calico-node
  tag: v3.31.6
- name: pause-container
  repository: registry.k8s.io/pause
  tag: "3.10"
- name: calico-node
  repository: example.org/mirror134/calico-node
  tag: v3.31.6
  targetVersion: ">= 1.34"
`

// MirroredV3317 are the entries a landscape running MirroredLandscape adds when it mirrors Calico
// v3.31.7's calico-node (each with `version`, one per mirror).
const MirroredV3317 = `- name: calico-node
  version: v3.31.7
  repository: example.org/mirror/calico-node
  tag: v3.31.7
- name: calico-node
  version: v3.31.7
  repository: example.org/mirror134/calico-node
  tag: v3.31.7
  targetVersion: ">= 1.34"
`
