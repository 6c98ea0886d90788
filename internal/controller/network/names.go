package network

import (
	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

// Names of the Calico Network controller and of what it stores (the lifecycle's own keys are in
// internal/extensions/network).
const (
	// Type is the Network type this controller reconciles.
	Type = calicov1alpha1.NetworkType
	// ControllerName names the controller in logs, metrics and events.
	ControllerName = "network-calico"
	// ManagedResourceName is the one ManagedResource holding everything deployed to the shoot.
	ManagedResourceName = "extension-networking-calico-config"
	// ManagedResourceOrigin is the origin label of that ManagedResource. It is the reference
	// extension's value, so that a landscape can swap calico-pilot in for it.
	ManagedResourceOrigin = "extension-networking-calico"
	// SeedManagedResourceName is the ManagedResource (class seed) holding the seed objects of the
	// shoot's control-plane namespace: the dashboards ConfigMap and the ScrapeConfigs.
	SeedManagedResourceName = "extension-networking-calico-monitoring"
	// ManagedResourceDataKey is the secret key holding the rendered manifest stream.
	ManagedResourceDataKey = "config.yaml"

	// LabelDNSRecordRoleGardener selects the kube-apiserver DNSRecords (value controlplane).
	LabelDNSRecordRoleGardener = extensionsv1alpha1.LabelGardenerRole
)

// Condition types written to Network.status.conditions.
const (
	// ConditionConfigurationValid says whether the providerConfig decodes and validates.
	ConditionConfigurationValid gardencorev1beta1.ConditionType = "ConfigurationValid"
	// ConditionKubeAPIServerGlobalNetworkSet says whether the gardener-kube-apiserver set is published.
	ConditionKubeAPIServerGlobalNetworkSet gardencorev1beta1.ConditionType = "KubeAPIServerGlobalNetworkSetReady"
	// ConditionProviderConfigHonoured says whether every providerConfig field is deployed as
	// written; False lists the contradictory fields (a config the reference accepted) and the
	// fields ignored for compatibility with the reference, and what is deployed for each.
	ConditionProviderConfigHonoured gardencorev1beta1.ConditionType = "ProviderConfigHonoured"
	// ConditionOverlaySwitch says whether an overlay switch waits for node routes.
	ConditionOverlaySwitch gardencorev1beta1.ConditionType = "OverlaySwitchReady"
	// ConditionIPPools says whether the shoot's IP pools are as the configuration asks, or which of
	// the owner's changes calico-pilot keeps instead of overriding them.
	ConditionIPPools gardencorev1beta1.ConditionType = "IPPoolsInSync"
	// ConditionCalicoVersion says which Calico line the shoot runs: True (Deployed), Progressing
	// while it moves between lines, False when a pin or a rollout asks for a line the shoot cannot
	// get (the pin is not supported, the line does not support the shoot's Kubernetes).
	ConditionCalicoVersion gardencorev1beta1.ConditionType = "CalicoVersion"
)

// seedMonitoringConfigMaps are the ConfigMaps in the control-plane namespace that the reference
// extension (or calico-pilot before the seed ManagedResource) may have written directly; delete
// removes them whatever the current config says.
func seedMonitoringConfigMaps() []string {
	return []string{"calico-dashboards", "calico-monitoring-config"}
}

// seedMonitoringScrapeConfigs are the monitoring.coreos.com/v1alpha1 ScrapeConfigs the reference
// extension (or calico-pilot before the seed ManagedResource) may have written directly (bird
// regardless of birdExporter, which the reference leaked).
func seedMonitoringScrapeConfigs() []string {
	return []string{"shoot-calico-bird", "shoot-calico-felix", "shoot-calico-typha"}
}
