package calicoversion

import (
	"slices"
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

// Calico's optional components: what a cluster runs besides the core three when its owner turns them
// on (the tigera operator's APIServer, Goldmane and Whisker resources and its CSI driver). They are
// named by their workload. A move does not wait for them: each moves with the core component the
// catalogue says (moves.with, Catalogue.MovesWith).
const (
	// APIServer is calico-apiserver, which serves the projectcalico.org/v3 API.
	APIServer Component = "calico-apiserver"
	// Goldmane is goldmane, the flow aggregator Felix sends flow logs to.
	Goldmane Component = "goldmane"
	// Whisker is whisker (the UI and whisker-backend, which reads Goldmane).
	Whisker Component = "whisker"
	// CSIDriver is csi-node-driver, the CSI driver of Calico's pod-level volumes (csi.tigera.io).
	CSIDriver Component = "csi-node-driver"
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
	// The optional components' images.
	ImageAPIServer           = "calico-apiserver"
	ImageGoldmane            = "calico-goldmane"
	ImageWhisker             = "calico-whisker"
	ImageWhiskerBackend      = "calico-whisker-backend"
	ImageCSI                 = "calico-csi"
	ImageNodeDriverRegistrar = "calico-node-driver-registrar"
)

// Components lists the core components in a fixed order: calico-node, Typha, kube-controllers. Every
// cluster runs them (Typha and kube-controllers where rendered); moves, Decide and the release a
// running install is read as iterate them.
func Components() []Component { return []Component{Node, Typha, KubeControllers} }

// Optional lists the optional components in a fixed order: calico-apiserver, goldmane, whisker,
// csi-node-driver.
func Optional() []Component { return []Component{APIServer, Goldmane, Whisker, CSIDriver} }

// AllComponents are Components followed by Optional.
func AllComponents() []Component { return append(Components(), Optional()...) }

// IsOptional is true for an optional component.
func (c Component) IsOptional() bool { return slices.Contains(Optional(), c) }

func componentNames() string {
	var out []string
	for _, c := range Components() {
		out = append(out, string(c))
	}
	return strings.Join(out, ", ")
}

func optionalNames() string {
	var out []string
	for _, c := range Optional() {
		out = append(out, string(c))
	}
	return strings.Join(out, ", ")
}

// ImageNames are the core components' images, in the order of Components: the ones whose presence in
// an image vector makes a release available (imagevector.Availability).
func ImageNames() []string { return []string{ImageNode, ImageCNI, ImageTypha, ImageKubeControllers} }

// OptionalImageNames are the optional components' images, in the order of Optional.
func OptionalImageNames() []string {
	return []string{ImageAPIServer, ImageGoldmane, ImageWhisker, ImageWhiskerBackend, ImageCSI, ImageNodeDriverRegistrar}
}

// AllImageNames are ImageNames followed by OptionalImageNames: every release of the catalogue names
// each of them.
func AllImageNames() []string { return append(ImageNames(), OptionalImageNames()...) }

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
	case APIServer, Goldmane, Whisker:
		// The optional Deployments are named after their component, in every layout.
		return Workload{Kind: "Deployment", Namespace: Namespace, Name: string(c)}
	case CSIDriver:
		return Workload{Kind: "DaemonSet", Namespace: Namespace, Name: string(c)}
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
	case APIServer:
		return []string{ImageAPIServer}
	case Goldmane:
		return []string{ImageGoldmane}
	case Whisker:
		return []string{ImageWhisker, ImageWhiskerBackend}
	case CSIDriver:
		return []string{ImageCSI, ImageNodeDriverRegistrar}
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
