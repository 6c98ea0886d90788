package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
)

// +kubebuilder:object:root=true

// ControllerConfiguration is the operator configuration of the extension's controller.
type ControllerConfiguration struct {
	metav1.TypeMeta `json:",inline"`

	// ClientConnection configures the connection to the seed's kube-apiserver.
	// +optional
	ClientConnection *componentbaseconfigv1alpha1.ClientConnectionConfiguration `json:"clientConnection,omitempty"`
	// FeatureGates switches the extension's feature gates (NonPrivilegedCalicoNode,
	// SeamlessOverlaySwitch); an unknown name is an error.
	// +optional
	FeatureGates map[string]bool `json:"featureGates,omitempty"`
	// KubeAPIServerGlobalNetworkSet is the default for all shoots; a shoot's providerConfig overrides it.
	// +optional
	KubeAPIServerGlobalNetworkSet *KubeAPIServerGlobalNetworkSet `json:"kubeAPIServerGlobalNetworkSet,omitempty"`
	// Compatibility configures how Networks last reconciled by the reference extension are treated.
	// +optional
	Compatibility *Compatibility `json:"compatibility,omitempty"`
	// Calico chooses the Calico release line of the shoots: the default and a rollout to another line
	// (docs/upgrades.md).
	// +optional
	Calico *CalicoVersions `json:"calico,omitempty"`
}

// CalicoVersions is the operator's choice of Calico release lines.
type CalicoVersions struct {
	// DefaultVersion is the line new shoots get ("v3.31", "v3.32"); unset means v3.31. Shoots that
	// already run a line keep it until a rollout moves them (or their own calicoVersion pin).
	// +optional
	DefaultVersion *string `json:"defaultVersion,omitempty"`
	// Rollout moves the shoots to TargetVersion wave by wave, halting itself when a wave fails.
	// +optional
	Rollout *Rollout `json:"rollout,omitempty"`
}

// Rollout moves shoots to a Calico release line in waves.
type Rollout struct {
	// Name identifies the rollout; its progress is kept under this name, and a new name starts a
	// new rollout from the first wave.
	Name string `json:"name"`
	// TargetVersion is the line the shoots move to (upwards or downwards).
	TargetVersion string `json:"targetVersion"`
	// Waves are opened one after the other; a shoot moves only once its wave is open. A shoot
	// belongs to the first wave that selects it.
	Waves []Wave `json:"waves"`
}

// Wave is one step of a rollout: which shoots move, how long the result must hold before the next
// wave opens, and how many shoots may fail before the rollout halts.
type Wave struct {
	// Name names the wave in the rollout's state and messages.
	Name string `json:"name"`
	// Percent selects this share (1-100) of all shoots, counted cumulatively over the waves in a
	// stable order of the shoots' control-plane namespaces: waves of 10, 50 and 100 take the first
	// 10 %, the next 40 % and the rest. Exactly one of Percent and Selector is set.
	// +optional
	Percent *int32 `json:"percent,omitempty"`
	// Selector selects shoots by their labels (the Shoot's metadata.labels).
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	// MinSoak is how long every shoot of the wave must have been healthy on the target line before
	// the next wave opens; unset means 1h.
	// +optional
	MinSoak *metav1.Duration `json:"minSoak,omitempty"`
	// RolloutDeadline is how long a shoot of the wave may take to finish its move (calico-node and
	// Typha rolled out, updated and available); a shoot that takes longer has failed. Unset means 30m.
	// +optional
	RolloutDeadline *metav1.Duration `json:"rolloutDeadline,omitempty"`
	// MaxFailures is the wave's failure budget: the rollout halts when more shoots of the wave fail.
	// Unset means 0 (the first failed shoot halts the rollout).
	// +optional
	MaxFailures *int32 `json:"maxFailures,omitempty"`
}

// Compatibility configures the behaviour for Networks the reference extension reconciled before
// calico-pilot was swapped in.
type Compatibility struct {
	// HonourIgnoredFields makes calico-pilot honour, for Networks last reconciled by the reference
	// extension, the providerConfig fields the reference ignored or overwrote (explicit CrossSubnet,
	// explicit autodetection, the deprecated ipip and ipAutodetectionMethod, typha requests in vpa
	// mode, ...). The data plane of such shoots may then change on the next reconcile (check with
	// calico-pilot swap-check first). Unset or false keeps what the reference rendered. Networks
	// calico-pilot reconciled from the start always honour every field.
	// +optional
	HonourIgnoredFields *bool `json:"honourIgnoredFields,omitempty"`
}

// KubeAPIServerGlobalNetworkSet is the operator default for the gardener-kube-apiserver GlobalNetworkSet.
type KubeAPIServerGlobalNetworkSet struct {
	// Enabled publishes the set for shoots that do not say otherwise; unset means disabled.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
}
