// Package deploy holds the Helm chart that installs calico-pilot (controller and Shoot admission webhook)
// into a seed, under deploy/calico-pilot. The package has no Go code of its own; its tests render the chart
// with helm.sh/helm/v4, apply the objects with a server-side dry run to a real kube-apiserver and decode
// the shipped ControllerConfiguration strictly.
package deploy
