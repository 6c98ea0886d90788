//go:build tools

// Package tools pins staticcheck, which `make lint` runs. It has its own module (like etcd) so that
// its dependencies never move the pins of the kube-apiserver build in hack/tools/go.mod, and a new
// staticcheck does not rebuild the test control plane.
package tools

import (
	_ "honnef.co/go/tools/cmd/staticcheck"
)
