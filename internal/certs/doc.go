// Package certs manages a self-signed CA and a serving certificate for a webhook server, persisted in one
// Secret so that every replica serves a certificate the same CA bundle trusts. The CA is rotated before it
// expires (30 days by default, as Gardener's extension webhooks); after a rotation the old CA stays in the
// bundle for a grace period so API servers that still hold the old bundle keep trusting the server
// (docs/gardener-integration.md §4.4).
package certs
