package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true

// NetworkStatus is the provider status of a Calico Network (Network.status.providerStatus). The
// reference writes only TypeMeta; the optional fields record what this extension applied, so that
// later reconciles decide from status instead of re-parsing rendered manifests.
type NetworkStatus struct {
	metav1.TypeMeta `json:",inline"`

	// OverlayEnabled is whether the applied configuration had the pod overlay on.
	// +optional
	OverlayEnabled *bool `json:"overlayEnabled,omitempty"`
	// Backend is the applied Calico networking backend.
	// +optional
	Backend *Backend `json:"backend,omitempty"`
	// IPFamilies are the IP families ("IPv4", "IPv6") the applied configuration serves.
	// +optional
	IPFamilies []string `json:"ipFamilies,omitempty"`
	// Compatibility is how the fields the reference extension ignored are treated for this Network:
	// Reference (ignored, as before a swap from the reference) or Native (honoured). It is chosen on
	// the first reconcile by calico-pilot and kept, so that the data plane does not change silently.
	// +optional
	Compatibility *CompatibilityMode `json:"compatibility,omitempty"`
	// IPPools records the IP pools calico-pilot created (or took over) in the shoot and what it saw
	// the shoot's owner change on them. A recorded pool is never created again, and only a change
	// of the configuration changes its encapsulation (docs/ippools.md).
	// +optional
	IPPools []IPPoolRecord `json:"ipPools,omitempty"`
	// TakenOver is what calico-pilot kept from the reference extension's calico-node pod template when
	// it was swapped in for the reference on this Network in Reference compatibility mode: values it
	// cannot derive (the reference's checksum of its calico-config, the scripts of its helper
	// containers), kept so that the swap-in does not roll calico-node for nothing
	// (docs/compatibility.md). The wire name takenOver stays for the Networks that carry it.
	// +optional
	TakenOver *TakenOverTemplate `json:"takenOver,omitempty"`
	// CalicoVersion is the Calico release every component of the shoot was last deployed with
	// ("v3.31.6"); unset on Networks deployed before releases were recorded, which run v3.31.6.
	// While the shoot moves to another release it stays the release moved from (CalicoMove).
	// +optional
	CalicoVersion string `json:"calicoVersion,omitempty"`
	// CalicoCRDVersion is the newest Calico release whose CRDs were applied to the shoot. The CRDs
	// never go back below it, so that no stored field is pruned by an older schema.
	// +optional
	CalicoCRDVersion string `json:"calicoCRDVersion,omitempty"`
	// CalicoMove is set while the shoot moves from CalicoVersion to another release.
	// +optional
	CalicoMove *CalicoMove `json:"calicoMove,omitempty"`
}

// CalicoMove is a move of one shoot between Calico releases, in Calico's order (calico-node first on
// the way up, Typha first on the way down).
type CalicoMove struct {
	// From and To are the releases ("v3.31.6", "v3.32.1").
	From string `json:"from"`
	To   string `json:"to"`
	// Phase is the step applied: First (the component that must move first) or Complete.
	Phase string `json:"phase"`
	// Started is when the move's first step was applied.
	Started metav1.Time `json:"started"`
	// Rollout names the operator's rollout that moved the shoot; empty for a shoot's own pin.
	// +optional
	Rollout string `json:"rollout,omitempty"`
}

// TakenOverTemplate holds the parts of the reference's calico-node pod template calico-pilot renders
// unchanged in Reference compatibility mode.
type TakenOverTemplate struct {
	// ConfigChecksum is the value of the reference's checksum/configmap-calico pod annotation. It is
	// rendered as long as calico-config has the content it stood for (ConfigFingerprint); a change of
	// the configuration rolls calico-node with calico-pilot's own checksum, as it should.
	// +optional
	ConfigChecksum string `json:"configChecksum,omitempty"`
	// ConfigFingerprint is the whitespace-insensitive fingerprint of the calico-config data
	// ConfigChecksum stood for (render.ConfigFingerprint).
	// +optional
	ConfigFingerprint string `json:"configFingerprint,omitempty"`
	// Commands are the commands of the reference's helper containers, by container name
	// (cleanup-routes, log-mtu-issues, hostpath-init, add-snat-rule-to-upstream-dns): the same work in
	// the reference's words.
	// +optional
	Commands map[string][]string `json:"commands,omitempty"`
}

// IPPoolRecord is what calico-pilot remembers about one IP pool it created.
type IPPoolRecord struct {
	// Name is the pool's name.
	Name string `json:"name"`
	// CIDR is the pool's CIDR when it was created.
	CIDR string `json:"cidr"`
	// Created is when calico-pilot created or adopted the pool.
	Created metav1.Time `json:"created"`
	// Adopted is true when the pool existed already (created by calico-node, or listed by an earlier
	// ManagedResource generation) and was adopted as it was.
	// +optional
	Adopted bool `json:"adopted,omitempty"`
	// IPIPMode and VXLANMode are the encapsulation the configuration last asked for.
	// +optional
	IPIPMode string `json:"ipipMode,omitempty"`
	// +optional
	VXLANMode string `json:"vxlanMode,omitempty"`
	// OwnerChanges are the owner's edits seen at the last sync ("deleted", "disabled",
	// "encapsulation", "nodeSelector", "replaced"); they are kept, never reverted.
	// +optional
	OwnerChanges []string `json:"ownerChanges,omitempty"`
}

// CompatibilityMode says how calico-pilot treats the fields the reference extension ignored or
// overwrote (docs/compatibility.md lists them).
// +kubebuilder:validation:Enum=Reference;Native
type CompatibilityMode string

const (
	// CompatibilityReference renders what the reference extension rendered for the same config:
	// the fields it ignored stay ignored. Networks last reconciled by the reference get it, unless
	// the operator opts in to honouring the fields (ControllerConfiguration compatibility).
	CompatibilityReference CompatibilityMode = "Reference"
	// CompatibilityNative honours every field as documented. New Networks get it.
	CompatibilityNative CompatibilityMode = "Native"
)
