// Package network is calico-pilot's extension controller for Gardener Network resources of type
// calico: the generic extension lifecycle (finalizer, operation annotation, lastOperation/lastError,
// observedGeneration, events; reference section 3.1 and gardener-wire-types.md section 4) and the
// actuator that gathers the inputs, decides and renders through a Renderer, stores the result in one
// ManagedResource and reports what it applied in the Network's status.
//
// The reconciler is a short list of named steps per operation; every decision that does not need I/O
// lives in pure functions (operation type, feature-set precedence, status diffs) with table tests.
package network
