package standalone

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	standalonev1alpha1 "github.com/calico-pilot/calico-pilot/api/standalone/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/validation"
)

// The cluster file's apiVersion and kind.
const (
	FileAPIVersion = "standalone.calico-pilot.dev/v1alpha1"
	FileKind       = standalonev1alpha1.Kind
)

var fileGVK = schema.FromAPIVersionAndKind(FileAPIVersion, FileKind)

// File is the cluster file of `calico-pilot apply -f`: a standalone.calico-pilot.dev/v1alpha1
// Cluster (the NetworkConfig, the facts about the cluster that Gardener would otherwise tell, the
// optional components), the same object `calico-pilot manage` reconciles. Every fact is optional:
// what is left out is read from the cluster (Observe).
type File struct {
	standalonev1alpha1.Cluster
	// Bare is true when the file was a NetworkConfig of its own, read as a Cluster with that
	// networkConfig and no facts.
	Bare bool
}

// FileFacts are the facts a cluster file may state.
type FileFacts = standalonev1alpha1.ClusterFacts

// FileKubeProxy is kube-proxy as the cluster runs it.
type FileKubeProxy = standalonev1alpha1.KubeProxy

// Paths of the file, for errors.
var (
	pathNetworkConfig = field.NewPath("networkConfig")
	pathFacts         = field.NewPath("cluster")
	pathComponents    = field.NewPath("components")
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
		f := &File{Bare: true}
		f.APIVersion, f.Kind, f.NetworkConfig = FileAPIVersion, FileKind, &runtime.RawExtension{Raw: js}
		return f, cfg, nil
	}
	f := &File{}
	if errs := decode.Object(data, nil, fileGVK, &f.Cluster); len(errs) > 0 {
		return nil, nil, errs
	}
	var errs field.ErrorList
	if n := f.Name; n != "" && n != standalonev1alpha1.ClusterName {
		errs = append(errs, field.NotSupported(field.NewPath("metadata", "name"), n, []string{standalonev1alpha1.ClusterName}))
	}
	if !equality.Semantic.DeepEqual(f.Status, standalonev1alpha1.ClusterStatus{}) {
		errs = append(errs, field.Forbidden(field.NewPath("status"), "the status is written by calico-pilot manage: leave it out of the file"))
	}
	cfg, verrs := ValidateCluster(&f.Cluster)
	if errs = append(errs, verrs...); len(errs) > 0 {
		return nil, nil, errs
	}
	return f, cfg, nil
}

// ValidateCluster decodes a Cluster's NetworkConfig strictly and checks its facts' formats and its
// components, with paths in the file (networkConfig.ipv4.mode, cluster.podCIDR,
// components.whisker.enabled). The NetworkConfig's rules that depend on the IP families are
// checked once the facts are complete (ValidateConfig). A Cluster without a networkConfig has an
// empty one.
func ValidateCluster(c *standalonev1alpha1.Cluster) (*calicov1alpha1.NetworkConfig, field.ErrorList) {
	errs := validateFacts(c.Facts, pathFacts)
	errs = append(errs, validateComponents(c.Components, pathComponents)...)
	cfg := &calicov1alpha1.NetworkConfig{}
	if nc := c.NetworkConfig; nc != nil && len(nc.Raw) > 0 && string(nc.Raw) != "null" {
		var derrs field.ErrorList
		if cfg, derrs = decode.NetworkConfig(nc.Raw, pathNetworkConfig); len(derrs) > 0 {
			return nil, append(errs, derrs...)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return cfg, nil
}

// validateComponents checks that whisker, when switched on, has goldmane switched on too.
func validateComponents(c *standalonev1alpha1.Components, p *field.Path) field.ErrorList {
	if c == nil || c.Whisker == nil || !ptr.Deref(c.Whisker.Enabled, false) {
		return nil
	}
	if c.Goldmane == nil || !ptr.Deref(c.Goldmane.Enabled, false) {
		return field.ErrorList{field.Invalid(p.Child("whisker", "enabled"), true, "whisker needs goldmane, where it reads its flows from: set components.goldmane.enabled: true, or components.whisker.enabled: false")}
	}
	return nil
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
func validateFacts(f FileFacts, p *field.Path) field.ErrorList {
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
