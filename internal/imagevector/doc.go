// Package imagevector holds the container image pins calico-pilot deploys (one embedded YAML file in
// Gardener's image vector format) and merges an operator's override file in the same format onto them
// with Gardener's rules (entries keyed by name, runtimeVersion, targetVersion and architectures; lookup by
// score), so images can come from a mirror registry, be pinned by digest or differ per Kubernetes version.
package imagevector
