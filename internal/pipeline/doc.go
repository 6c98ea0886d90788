// Package pipeline is the one path from a Shoot, or a Network with the Shoot of its Cluster, to
// what calico-pilot deploys: the decoded and validated NetworkConfig, the resolved render options,
// the shoot manifest (the ManagedResource secret's content), the seed objects and the provider
// status that records what was applied.
//
// The controller, `calico-pilot render` and `validate`, the admission webhook, the demo and the
// tests all go through it, so the CLI renders exactly what the controller deploys and every
// derived answer (hibernation, "is the overlay on?") has one home. Encoding is cached here, not in
// render: the CRDs and render's constant groups are encoded once per Encoder.
package pipeline
