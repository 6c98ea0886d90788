package standalone

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/validation"
)

// The cluster file's apiVersion and kind.
const (
	FileAPIVersion = "standalone.calico-pilot.dev/v1alpha1"
	FileKind       = "Cluster"
)

var fileGVK = schema.FromAPIVersionAndKind(FileAPIVersion, FileKind)

// File is the cluster file of `calico-pilot apply -f`: the NetworkConfig and the facts about the
// cluster that Gardener would otherwise tell. Every fact is optional: what is left out is read from
// the cluster (Gather).
type File struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// NetworkConfig is the calico.networking.extensions.gardener.cloud/v1alpha1 NetworkConfig, the
	// same API and validation as a shoot's providerConfig.
	NetworkConfig json.RawMessage `json:"networkConfig,omitempty"`
	// Cluster holds the facts.
	Cluster FileFacts `json:"cluster,omitempty"`
	// Bare is true when the file was a NetworkConfig of its own, read as a Cluster with that
	// networkConfig and no facts.
	Bare bool `json:"-"`
}

// FileFacts are the facts a cluster file may state.
type FileFacts struct {
	// KubernetesVersion is the cluster's Kubernetes version ("1.33.2").
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// PodCIDR is the pod network (kubeadm's networking.podSubnet); with two families, two CIDRs
	// separated by a comma, IPv4 first.
	PodCIDR string `json:"podCIDR,omitempty"`
	// ServiceCIDR is the service network (kubeadm's networking.serviceSubnet).
	ServiceCIDR string `json:"serviceCIDR,omitempty"`
	// NodeCIDR is the network the nodes' addresses are in (Calico autodetects addresses in it).
	NodeCIDR string `json:"nodeCIDR,omitempty"`
	// IPFamilies are IPv4 and/or IPv6; default: the families of PodCIDR.
	IPFamilies []string `json:"ipFamilies,omitempty"`
	// KubeProxy says whether kube-proxy runs and in which mode.
	KubeProxy *FileKubeProxy `json:"kubeProxy,omitempty"`
}

// FileKubeProxy is kube-proxy as the cluster runs it.
type FileKubeProxy struct {
	// Enabled is whether kube-proxy runs.
	Enabled *bool `json:"enabled,omitempty"`
	// Mode is IPTables, IPVS or NFTables.
	Mode string `json:"mode,omitempty"`
}

// Paths of the file, for errors.
var (
	pathNetworkConfig = field.NewPath("networkConfig")
	pathFacts         = field.NewPath("cluster")
)

// ReadFile strictly decodes a cluster file (an unknown or misspelt field is an error naming it) and
// its NetworkConfig, validated as a shoot's would be for the file's IP families. Errors carry
// paths in the file (networkConfig.ipv4.mode, cluster.podCIDR); an error about the whole file (it
// is empty) is at name, the file's name.
//
// A bare NetworkConfig (apiVersion calico.networking.extensions.gardener.cloud/v1alpha1, kind
// NetworkConfig) is read as a cluster file with that networkConfig and no facts (File.Bare): every
// fact is optional. Its errors are where the user wrote the values, at the top level (ipv4.mode);
// File.InFile roots the later errors there too.
func ReadFile(name string, data []byte) (*File, *calicov1alpha1.NetworkConfig, field.ErrorList) {
	js, err := yaml.YAMLToJSON(data)
	if err == nil && string(js) == "null" {
		return nil, nil, field.ErrorList{field.Required(field.NewPath(name), fmt.Sprintf("the file is empty: a cluster file is an object with apiVersion %s and kind %s "+
			"(networkConfig and cluster facts, docs/standalone.md), or a bare NetworkConfig", FileAPIVersion, FileKind))}
	}
	if err == nil && isBareNetworkConfig(js) {
		cfg, errs := decode.NetworkConfig(data, nil)
		if len(errs) > 0 {
			return nil, nil, errs
		}
		return &File{APIVersion: FileAPIVersion, Kind: FileKind, NetworkConfig: js, Bare: true}, cfg, nil
	}
	f := &File{}
	if errs := decode.Object(data, nil, fileGVK, f); len(errs) > 0 {
		return nil, nil, errs
	}
	errs := f.Cluster.validate(pathFacts)
	cfg := &calicov1alpha1.NetworkConfig{}
	if len(f.NetworkConfig) > 0 && string(f.NetworkConfig) != "null" {
		var derrs field.ErrorList
		if cfg, derrs = decode.NetworkConfig(f.NetworkConfig, pathNetworkConfig); len(derrs) > 0 {
			return nil, nil, append(errs, derrs...)
		}
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	return f, cfg, nil
}

// isBareNetworkConfig says whether the JSON document js is a NetworkConfig of its own.
func isBareNetworkConfig(js []byte) bool {
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if json.Unmarshal(js, &tm) != nil {
		return false
	}
	return tm.APIVersion == calicov1alpha1.SchemeGroupVersion.String() && tm.Kind == "NetworkConfig"
}

// InFile roots errors (with paths in a cluster file: networkConfig.ipv4.mode, cluster.podCIDR)
// where the user wrote the values: for a bare NetworkConfig, the NetworkConfig is the document
// (ipv4.mode, in the field and in the text), and a fact it cannot state says how to state it.
func (f *File) InFile(errs field.ErrorList) field.ErrorList {
	if f == nil || !f.Bare {
		return errs
	}
	out := make(field.ErrorList, 0, len(errs))
	for _, e := range errs {
		c := *e
		switch {
		case c.Field == pathNetworkConfig.String():
			c.Field = "<document>"
		case strings.HasPrefix(c.Field, pathNetworkConfig.String()+"."):
			c.Field = strings.TrimPrefix(c.Field, pathNetworkConfig.String()+".")
		case c.Field == pathFacts.String() || strings.HasPrefix(c.Field, pathFacts.String()+"."):
			c.Detail += fmt.Sprintf(" (the file is a bare NetworkConfig, which states no facts: to state %s, write a %s file with the NetworkConfig under networkConfig, docs/standalone.md)", c.Field, FileKind)
		}
		c.Detail = strings.ReplaceAll(c.Detail, pathNetworkConfig.String()+".", "")
		out = append(out, &c)
	}
	return out
}

// ValidateConfig validates the NetworkConfig for the cluster's IP families (known once the facts
// are complete), with paths in the file.
func ValidateConfig(cfg *calicov1alpha1.NetworkConfig, families []string) field.ErrorList {
	fams := make([]gardencorev1beta1.IPFamily, 0, len(families))
	for _, f := range families {
		fams = append(fams, gardencorev1beta1.IPFamily(f))
	}
	return validation.ValidateNetworkConfig(cfg, fams, pathNetworkConfig)
}

// validate checks the facts' formats.
func (f FileFacts) validate(p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if f.PodCIDR != "" {
		if _, err := parseCIDRs(f.PodCIDR); err != nil {
			errs = append(errs, field.Invalid(p.Child("podCIDR"), f.PodCIDR, err.Error()))
		}
	}
	for name, v := range map[string]string{"serviceCIDR": f.ServiceCIDR, "nodeCIDR": f.NodeCIDR} {
		if v == "" {
			continue
		}
		if _, err := parseCIDRs(v); err != nil {
			errs = append(errs, field.Invalid(p.Child(name), v, err.Error()))
		}
	}
	for i, fam := range f.IPFamilies {
		if fam != "IPv4" && fam != "IPv6" {
			errs = append(errs, field.NotSupported(p.Child("ipFamilies").Index(i), fam, []string{"IPv4", "IPv6"}))
		}
	}
	if kp := f.KubeProxy; kp != nil && kp.Mode != "" {
		if _, ok := proxyModes[kp.Mode]; !ok {
			errs = append(errs, field.NotSupported(p.Child("kubeProxy", "mode"), kp.Mode, []string{"IPTables", "IPVS", "NFTables"}))
		}
	}
	if f.KubernetesVersion != "" && !validVersion(f.KubernetesVersion) {
		errs = append(errs, field.Invalid(p.Child("kubernetesVersion"), f.KubernetesVersion, "must be MAJOR.MINOR.PATCH, e.g. 1.33.2"))
	}
	return errs
}

// proxyModes maps the file's modes to kube-proxy's own spelling in its configuration.
var proxyModes = map[string]string{"IPTables": "iptables", "IPVS": "ipvs", "NFTables": "nftables"}

func validVersion(v string) bool {
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}

// parseCIDRs parses one CIDR or two separated by a comma (kubeadm's dual-stack form).
func parseCIDRs(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		p, err := netip.ParsePrefix(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("not a CIDR: %q", part)
		}
		out = append(out, p.Masked())
	}
	if len(out) > 2 || (len(out) == 2 && out[0].Addr().Is4() == out[1].Addr().Is4()) {
		return nil, fmt.Errorf("at most one CIDR per IP family")
	}
	return out, nil
}

// families returns the IP families of CIDRs, IPv4 first.
func families(ps []netip.Prefix) []string {
	var v4, v6 bool
	for _, p := range ps {
		if p.Addr().Is4() {
			v4 = true
		} else {
			v6 = true
		}
	}
	var out []string
	if v4 {
		out = append(out, "IPv4")
	}
	if v6 {
		out = append(out, "IPv6")
	}
	return out
}
