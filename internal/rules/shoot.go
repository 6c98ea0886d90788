package rules

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// ShootNetworking is what calico-pilot does with a Shoot's networking (NetworkingOf).
type ShootNetworking int

const (
	// NetworkingCalico is a Shoot with worker pools and networking type calico: Gardener creates a
	// Network for it, which calico-pilot validates, renders and deploys.
	NetworkingCalico ShootNetworking = iota
	// NetworkingWorkerless is a Shoot without worker pools, whatever its networking type: Gardener
	// creates no Network for it, so it has no Calico to configure or check.
	NetworkingWorkerless
	// NetworkingOther is a Shoot with worker pools and another networking type, or none.
	NetworkingOther
)

// NetworkingOf is the one decision of whether a Shoot gets Calico networking: it does exactly when
// it has worker pools (gardencorev1beta1.Shoot.IsWorkerless) and its networking type is calico. A
// workerless Shoot is NetworkingWorkerless whatever its type, since no networking extension serves
// it. Validation, admission, render, validate and swap-check all ask here, each with its own words
// for the answer.
func NetworkingOf(shoot *gardencorev1beta1.Shoot) ShootNetworking {
	switch {
	case shoot.IsWorkerless():
		return NetworkingWorkerless
	case shoot.NetworkingType() != calicov1alpha1.NetworkType:
		return NetworkingOther
	}
	return NetworkingCalico
}

// ShootFacts are the parts of a Shoot, besides its NetworkConfig, that the rules judge the
// NetworkConfig against; the caller gathers them once (validation.ValidateShoot).
type ShootFacts struct {
	// Families are the Shoot's IP families (spec.networking.ipFamilies). A Shoot is judged as it
	// asks, so Requested and Active are the same set.
	Families Families
	// KubeProxyEnabled is spec.kubernetes.kubeProxy.enabled; nil means enabled.
	KubeProxyEnabled *bool
	// VPAEnabled is spec.kubernetes.verticalPodAutoscaler.enabled.
	VPAEnabled bool
	// KubernetesVersion is spec.kubernetes.version; an empty or unparsable one is not judged.
	KubernetesVersion string
}

// ShootKubeProxyEnabledPath is where a Shoot says whether kube-proxy runs.
func ShootKubeProxyEnabledPath() *field.Path {
	return field.NewPath("spec", "kubernetes", "kubeProxy", "enabled")
}

// ShootVPAEnabledPath is where a Shoot says whether it runs a VerticalPodAutoscaler.
func ShootVPAEnabledPath() *field.Path {
	return field.NewPath("spec", "kubernetes", "verticalPodAutoscaler", "enabled")
}

// Shoot applies every rule to a Shoot's NetworkConfig and returns the errors, in this order: the
// NetworkConfig rules with the Shoot's families (NetworkConfig), then the rules that need the rest of
// the Shoot: kube-proxy (KubeProxy), the VPA prerequisite of autoScaling.mode vpa (ShootVPA) and the
// Kubernetes range of a pinned Calico release (CalicoVersionKubernetes). path is where the
// NetworkConfig sits (spec.networking.providerConfig); a nil cfg is a Shoot without one, for which
// only the rules of the rest of the Shoot apply.
func Shoot(cfg *calicov1alpha1.NetworkConfig, facts ShootFacts, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	var pin calicoversion.Release
	if cfg != nil {
		_, pin, errs = networkConfig(cfg, facts.Families, NodeNetworks{}, path)
	}
	errs = append(errs, KubeProxy(cfg, facts.KubeProxyEnabled, ShootKubeProxyEnabledPath(), path)...)
	errs = append(errs, ShootVPA(cfg, facts.VPAEnabled, ShootVPAEnabledPath(), path)...)
	return append(errs, pinKubernetes(cfg, pin, facts.KubernetesVersion, path)...)
}
