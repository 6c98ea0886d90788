// Package gardenadmission runs the Shoot admission webhook the way gardener-operator deploys extension
// admissions (docs/gardener-integration.md §4): the server runs in the garden runtime cluster, its
// ValidatingWebhookConfiguration is registered in the virtual garden in url mode, and a self-managed CA and
// serving certificate (internal/certs, kept in the source cluster) rotate on their own.
package gardenadmission
