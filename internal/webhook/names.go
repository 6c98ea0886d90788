package webhook

// Path is the URL path the Shoot validator is served at (the ValidatingWebhookConfiguration's
// clientConfig.service.path).
const Path = "/webhooks/validate-shoot"

// ReferencePath is the path the reference extension's admission serves the same webhook at. The server
// serves it too, and registers it in the virtual garden (gardenadmission): while the reference's pods and
// calico-pilot's serve side by side during a swap, the one URL the API server calls is answered by both.
const ReferencePath = "/webhooks/validate"

// LargeClusterNodes is the node count from which a shoot counts as large for the typha warning:
// Calico's guidance is to run typha on clusters of more than 50 nodes, because without it every
// calico-node watches the kube-apiserver directly.
const LargeClusterNodes = 50
