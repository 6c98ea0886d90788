package calicoversion

import (
	"strings"
)

// Component is one of Calico's components whose release a move changes.
type Component string

// Calico's components, by the name of their workload's main container.
const (
	// Node is calico-node (Felix, BIRD, confd), with its CNI init containers and the ensurer sidecar.
	Node Component = "calico-node"
	// Typha is calico-typha.
	Typha Component = "calico-typha"
	// KubeControllers is calico-kube-controllers.
	KubeControllers Component = "calico-kube-controllers"
)

// The workloads that run the components in a shoot (render names its objects so).
const (
	// Namespace is where every Calico workload runs. v3.32's kube-controllers waits for the
	// calico-node DaemonSet of its own namespace, so both must stay here (docs/calico-lines.md).
	Namespace = "kube-system"
	// NodeDaemonSet is calico-node's DaemonSet.
	NodeDaemonSet = "calico-node"
	// TyphaDeployment is Typha's Deployment; absent when Typha is off.
	TyphaDeployment = "calico-typha-deploy"
	// KubeControllersDeployment is kube-controllers' Deployment; absent where kube-controllers is not
	// rendered (the policy-only backend).
	KubeControllersDeployment = "calico-kube-controllers"
)

// The names of Calico's images in the image vector (catalogue.yaml lists them per release).
const (
	ImageNode            = "calico-node"
	ImageCNI             = "calico-cni"
	ImageTypha           = "calico-typha"
	ImageKubeControllers = "calico-kube-controllers"
)

// Components lists the components in a fixed order: calico-node, Typha, kube-controllers.
func Components() []Component { return []Component{Node, Typha, KubeControllers} }

func componentNames() string {
	var out []string
	for _, c := range Components() {
		out = append(out, string(c))
	}
	return strings.Join(out, ", ")
}

// ImageNames are Calico's images, in the order of Components.
func ImageNames() []string { return []string{ImageNode, ImageCNI, ImageTypha, ImageKubeControllers} }

// Workload is a component's workload in the shoot.
type Workload struct {
	// Kind is DaemonSet or Deployment.
	Kind string
	// Namespace and Name of the object.
	Namespace, Name string
}

// Workload returns the component's workload.
func (c Component) Workload() Workload {
	switch c {
	case Node:
		return Workload{Kind: "DaemonSet", Namespace: Namespace, Name: NodeDaemonSet}
	case Typha:
		return Workload{Kind: "Deployment", Namespace: Namespace, Name: TyphaDeployment}
	case KubeControllers:
		return Workload{Kind: "Deployment", Namespace: Namespace, Name: KubeControllersDeployment}
	}
	return Workload{}
}

// Images are the image names the component's pods run (calico-node's CNI init containers run calico-cni).
func (c Component) Images() []string {
	switch c {
	case Node:
		return []string{ImageNode, ImageCNI}
	case Typha:
		return []string{ImageTypha}
	case KubeControllers:
		return []string{ImageKubeControllers}
	}
	return nil
}

// ComponentOfWorkload returns the component whose workload is kind/name.
func ComponentOfWorkload(kind, name string) (Component, bool) {
	for _, c := range Components() {
		if w := c.Workload(); w.Kind == kind && w.Name == name {
			return c, true
		}
	}
	return "", false
}
