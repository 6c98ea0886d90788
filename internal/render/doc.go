// Package render turns resolved values.Options into every object Calico needs in a shoot (and the
// seed-side monitoring objects), as typed Kubernetes objects. It is pure: no client, no context, no
// clock, no environment; the same Options always give the same objects in the same order.
//
// A shoot is a list of components (render.go): node, typha, kubecontrollers, ippools, multus,
// globalnetworkset and policyadmission. Each component's file builds all of its objects (typha.go: typha's
// Deployment, Services, PodDisruptionBudget, ServiceAccount, NetworkPolicy, autoscalers and VPA),
// and its golden files are testdata/shoot/<scenario>/<component>.yaml (for the golden scenarios;
// the others are pinned by testdata/delta, see testdata/README.md). A component's objects that
// do not depend on the options are built by its *Constants builders and grouped in constants.go;
// the component's render function returns its objects and its groups together (a part), decided
// from the same conditions, and ShootParts returns the groups as Constants (a group and the Calico
// releases its RBAC serves), so that a caller serializing many shoots encodes each once (internal/pipeline's
// Encoder does).
//
// Layout: every namespace, workload name, selector and calico-node's ConfigMap comes from the
// options' layout (values.Options.Layout, internal/layout; zero is Gardener's kube-system layout), so
// one renderer builds Gardener's objects and those of a cluster the tigera operator ran; the constant
// groups carry the layout in their key. Typha's mutual TLS (values.Options.TyphaTLS) is env, volumes
// and mounts of calico-node and typha (typhatls.go). docs/layouts.md.
//
// Calico releases: every difference between the Calico releases calico-pilot deploys (the catalogue's
// differences, internal/calicoversion) is selected in the component that owns it by o.Calico (a
// calicoversion.Deployment), asking a release whether it has the difference: the CRDs by o.Calico.CRDs,
// each role's rules by the releases it serves (rbac_lines.go), calico-node's environment, mounts and CNI
// configuration by o.Calico.Node. docs/calico-lines.md lists them.
// helpers.go, rbac helpers included, and autoscaling.go hold builders the components share; the
// static CRDs (crds.go) and the seed's monitoring objects (monitoring.go, dashboards.go) are
// rendered on their own. Every builder returns complete objects with TypeMeta set, so the
// serializer and the API server see exactly what is built here.
package render
