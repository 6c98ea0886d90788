// Package layout describes where Calico's objects live in a cluster and what they are called: the
// namespace, the names of the workloads and of the objects they use, the workloads' immutable
// selectors and labels, and where Typha's TLS material is (TyphaTLS). A layout is data the renderer
// takes (values.Settings.Layout), never a second renderer: the same render builds calico-node, Typha
// and kube-controllers in Gardener's kube-system layout (the zero Layout) or in the calico-system
// layout the tigera operator leaves behind, so that taking such a cluster over is a rolling update of
// each workload (docs/layouts.md).
//
// The package is pure and small (it imports internal/calicoversion and apimachinery's name
// validation), so the readers of a running install (apply, rollout) can find the workloads of any
// layout (Layout.Workload) without the renderer.
package layout
