// Package imagevector holds the container image pins calico-pilot deploys (one embedded YAML file)
// and applies an operator's override file on top, so images can come from a mirror registry or be
// pinned by digest.
package imagevector
