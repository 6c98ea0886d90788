// Package version holds calico-pilot's own version: the binary reports it (--version, the user
// agent) and the image vector tags calico-pilot's own images with it (cni-plugins, the way Gardener's
// WithOptionalTag tags an extension's own images).
package version

// Version is the calico-pilot version, set at build time with
// -ldflags "-X github.com/calico-pilot/calico-pilot/internal/version.Version=v1.2.3" (Makefile, Dockerfile).
var Version = "v0.1.0"
