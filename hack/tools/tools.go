//go:build tools

// Package tools pins the binaries the project builds from Go modules: the test control plane's
// kube-apiserver and the code generators.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
