package rules

import (
	"fmt"
	"math"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
)

var (
	supportedAutoScalingModes = []string{"cluster-proportional", "vpa", "static"}
	supportedResources        = []string{"cpu", "memory"}
)

// Resources is a cpu/memory pair; a zero Quantity means unset.
type Resources struct {
	CPU, Memory resource.Quantity
}

// AutoScalingSettings is the autoscaling configuration as the user wrote it.
type AutoScalingSettings struct {
	// Mode is cluster-proportional (the default), vpa or static.
	Mode calicov1alpha1.AutoScalingMode
	// Node and Typha are autoScaling.resources.node and .typha.
	Node, Typha Resources
}

// AutoScaling returns the autoscaling configuration and the errors of the autoscaling rules:
// mode is one of the supported ones (required inside the block), resources name cpu and memory
// with amounts greater than zero. Resources are checked in every mode: they are inert in
// cluster-proportional mode, not wrong.
func AutoScaling(cfg *calicov1alpha1.NetworkConfig, path *field.Path) (AutoScalingSettings, field.ErrorList) {
	out := AutoScalingSettings{Mode: calicov1alpha1.AutoScalingModeClusterProportional}
	as := cfg.AutoScaling
	if as == nil {
		return out, nil
	}
	var errs field.ErrorList
	p := path.Child("autoScaling")
	out.Mode = as.Mode
	if !contains(supportedAutoScalingModes, as.Mode) {
		errs = append(errs, RuleAutoScalingMode.notSupported(p.Child("mode"), string(as.Mode), supportedAutoScalingModes))
	}
	if as.Resources != nil {
		var nodeErrs, typhaErrs field.ErrorList
		out.Node, nodeErrs = resources(as.Resources.Node, p.Child("resources", "node"))
		out.Typha, typhaErrs = resources(as.Resources.Typha, p.Child("resources", "typha"))
		errs = append(append(errs, nodeErrs...), typhaErrs...)
	}
	return out, errs
}

// maxAmount is the largest amount of each resource that fits the int64 the kubelet keeps it in.
var maxAmount = map[corev1.ResourceName]resource.Quantity{
	corev1.ResourceCPU:    *resource.NewMilliQuantity(math.MaxInt64, resource.DecimalSI),
	corev1.ResourceMemory: *resource.NewQuantity(math.MaxInt64, resource.BinarySI),
}

// resources reads cpu and memory. A negative amount is one error (the reference reported two).
func resources(list *corev1.ResourceList, p *field.Path) (Resources, field.ErrorList) {
	var out Resources
	if list == nil {
		return out, nil
	}
	names := make([]string, 0, len(*list))
	for name := range *list {
		names = append(names, string(name))
	}
	sort.Strings(names)
	var errs field.ErrorList
	for _, name := range names {
		kp := p.Key(name)
		q := (*list)[corev1.ResourceName(name)]
		switch corev1.ResourceName(name) {
		case corev1.ResourceCPU:
			out.CPU = q
		case corev1.ResourceMemory:
			out.Memory = q
		default:
			errs = append(errs, RuleAutoScalingResource.notSupported(kp, name, supportedResources))
			continue
		}
		switch q.Sign() {
		case 0:
			errs = append(errs, RuleAutoScalingAmount.invalid(kp, q.String(), "must be specified and cannot be zero"))
		case -1:
			errs = append(errs, RuleAutoScalingAmount.invalid(kp, q.String(), "must be positive"))
		default:
			// Kept as int64 (millicores, bytes), a larger amount is parsed as the largest int64
			// (9Ei already is), so the largest int64 itself stands for "too large".
			if limit := maxAmount[corev1.ResourceName(name)]; q.Cmp(limit) >= 0 {
				errs = append(errs, RuleAutoScalingAmountRange.invalid(kp, q.String(), "is too large: it must be less than "+limit.String()+" (quantities this large are stored as the largest int64, so 9Ei would silently become 8Ei)"))
			}
		}
	}
	return out, errs
}

// ShootVPA returns the error of the VPA rule: mode vpa needs the shoot's VerticalPodAutoscaler
// (the reference silently fell back to cluster-proportional). vpaPath is where the shoot enables
// it, path where the NetworkConfig sits.
func ShootVPA(cfg *calicov1alpha1.NetworkConfig, vpaEnabled bool, vpaPath, path *field.Path) field.ErrorList {
	if vpaEnabled || cfg == nil || cfg.AutoScaling == nil || cfg.AutoScaling.Mode != calicov1alpha1.AutoScalingModeVPA {
		return nil
	}
	return field.ErrorList{RuleAutoScalingVPA.invalid(path.Child("autoScaling", "mode"), string(cfg.AutoScaling.Mode),
		fmt.Sprintf(`needs the shoot's VPA: set %s: true, or use "cluster-proportional" or "static"`, vpaPath))}
}
