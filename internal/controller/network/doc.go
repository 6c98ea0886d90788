// Package network is calico-pilot's actuator for Gardener Network resources of type calico: it
// gathers the inputs, decides and renders through a Renderer, stores the result in one
// ManagedResource per side (shoot, seed), keeps the shoot's IP pools and the overlay switch safe,
// and reports what it applied in the Network's status (conditions, providerStatus, ipFamilies).
//
// The generic extension lifecycle (watch and predicates, operation annotation, finalizer,
// lastOperation/lastError/observedGeneration, events, retries; docs/gardener-api-types.md section 4) is
// not here: internal/extensions/network runs it and calls this package's Actuator through its
// Actuator interface. NewManager and AddToManager wire the two together.
package network
