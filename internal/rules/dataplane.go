package rules

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
)

var supportedServiceLoopPrevention = []string{"Disabled", "Drop", "Reject"}

// VethMTU returns the veth MTU ("0", the default, auto-detects) and the errors of the MTU rules:
// an integer, 0 or between 68 (the IPv4 minimum) and 65535, written plainly (rendering copies the
// string).
func VethMTU(cfg *calicov1alpha1.NetworkConfig, path *field.Path) (string, field.ErrorList) {
	if cfg.VethMTU == nil {
		return "0", nil
	}
	mtu := *cfg.VethMTU
	p := path.Child("vethMTU")
	if mtu == "" {
		return mtu, field.ErrorList{RuleVethMTUFormat.invalid(p, mtu, `MTU cannot be empty; use "0" to auto-detect`)}
	}
	n, err := strconv.Atoi(mtu)
	switch {
	case err != nil:
		return mtu, field.ErrorList{RuleVethMTUFormat.invalid(p, mtu, `must be an integer such as "1440", or "0" to auto-detect`)}
	case n < 0:
		return mtu, field.ErrorList{RuleVethMTUFormat.invalid(p, mtu, `MTU must be a positive integer, or "0" to auto-detect`)}
	case strconv.Itoa(n) != mtu:
		return mtu, field.ErrorList{RuleVethMTUPlain.invalid(p, mtu, fmt.Sprintf("must be written as a plain integer: %q", strconv.Itoa(n)))}
	case n != 0 && (n < 68 || n > 65535):
		return mtu, field.ErrorList{RuleVethMTURange.invalid(p, mtu, `must be between 68 and 65535, or "0" to auto-detect`)}
	}
	return mtu, nil
}

// ServiceLoopPrevention returns Felix's service loop prevention ("" means Felix's default) and the
// error of its rule.
func ServiceLoopPrevention(cfg *calicov1alpha1.NetworkConfig, path *field.Path) (string, field.ErrorList) {
	if cfg.ServiceLoopPrevention == nil {
		return "", nil
	}
	v := *cfg.ServiceLoopPrevention
	if !contains(supportedServiceLoopPrevention, v) {
		return string(v), field.ErrorList{RuleServiceLoopPreventionSupported.notSupported(path.Child("serviceLoopPrevention"), string(v), supportedServiceLoopPrevention)}
	}
	return string(v), nil
}

// KubeProxy returns the error of the kube-proxy rule: kube-proxy may only be disabled with the
// eBPF dataplane, which takes over its work. A nil cfg is an empty one; kubeProxyEnabled nil means enabled; kubeProxyPath is
// where the shoot disables it, path where the NetworkConfig sits.
func KubeProxy(cfg *calicov1alpha1.NetworkConfig, kubeProxyEnabled *bool, kubeProxyPath, path *field.Path) field.ErrorList {
	ebpf := cfg != nil && cfg.EbpfDataplane != nil && cfg.EbpfDataplane.Enabled
	if kubeProxyEnabled == nil || *kubeProxyEnabled || ebpf {
		return nil
	}
	return field.ErrorList{RuleKubeProxyEBPF.forbidden(kubeProxyPath, fmt.Sprintf("Disabling kube-proxy is forbidden in conjunction with calico without running in ebpf dataplane; set %s: true or enable kube-proxy", path.Child("ebpfDataplane", "enabled")))}
}
