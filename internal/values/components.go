package values

import (
	"maps"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Components are the optional Calico components a render includes besides calico-node, Typha and
// kube-controllers (docs/components/): the zero value renders none of them, which is what every
// Gardener shoot gets. The key pairs and CA bundles they mount are written by the caller, as the
// Typha TLS material is; render only names and mounts them (layout.Components).
type Components struct {
	// APIServer renders calico-apiserver (the projectcalico.org/v3 API) and its APIService.
	APIServer bool
	// Goldmane renders goldmane and points calico-node's Felix at it.
	Goldmane bool
	// Whisker renders whisker (UI and whisker-backend); it needs Goldmane.
	Whisker bool
	// CSIDriver renders the csi-node-driver DaemonSet and the CSIDriver csi.tigera.io.
	CSIDriver bool
	// GoldmaneServiceIP is the ClusterIP of goldmane's Service: calico-node (host network) resolves
	// goldmane.<namespace>.svc by a hostAliases entry to it. Empty: no hostAliases entry.
	GoldmaneServiceIP string
	// APIServiceCABundle is the PEM the APIService's spec.caBundle carries (the CA of calico-apiserver's
	// serving certificate). Render refuses an APIService without one: the aggregator would otherwise
	// have to skip verifying calico-apiserver's certificate.
	APIServiceCABundle string
	// Checksums are digests of the Secrets and ConfigMaps the components mount, by object name, set
	// by the caller that writes them. Each is put on the pod templates that mount that object as
	// annotation checksum/<name>, so a renewal rolls only the pods that use it.
	Checksums map[string]string
}

// Any is true when at least one optional component renders.
func (c Components) Any() bool { return c.APIServer || c.Goldmane || c.Whisker || c.CSIDriver }

// ComponentsPath is where the standalone Cluster file configures the optional components, for errors.
var ComponentsPath = field.NewPath("components")

// Validate checks the combination: whisker-backend reads Goldmane, so Whisker without Goldmane is an
// error on components.whisker.enabled.
func (c Components) Validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c.Whisker && !c.Goldmane {
		errs = append(errs, field.Invalid(path.Child("whisker", "enabled"), true,
			"whisker needs goldmane (whisker-backend reads flows from Goldmane); enable goldmane as well, or turn whisker off"))
	}
	return errs
}

// clone is c with its own Checksums map.
func (c Components) clone() Components {
	c.Checksums = maps.Clone(c.Checksums)
	return c
}
