// Package deploy holds calico-pilot's Helm charts: deploy/calico-pilot, the controller installed into each
// seed by gardenlet (ControllerRegistration + ControllerDeployment; it also accepts the reference chart's
// values), and deploy/calico-pilot-admission, the Shoot admission installed by gardener-operator's
// Extension into the garden runtime cluster with its RBAC in the virtual garden. The package has no Go
// code of its own; its tests render the charts with helm.sh/helm/v4 (schema enforced, as gardenlet and
// gardener-operator do), apply the objects with a server-side dry run to a real kube-apiserver and decode
// the shipped ControllerConfiguration strictly.
package deploy
