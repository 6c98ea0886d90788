package standalone

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
)

// Observed are the facts read from the cluster, each with where it was read ("" when the cluster
// does not say).
type Observed struct {
	KubernetesVersion              string
	PodCIDR, PodCIDRSource         string
	ServiceCIDR, ServiceCIDRSource string
	// NodePodCIDRs are the Nodes' spec.podCIDRs by node name.
	NodePodCIDRs map[string][]string
	// KubeProxy is nil when there is no kube-system/kube-proxy ConfigMap.
	KubeProxy *FileKubeProxy
}

// Facts are the completed facts a render uses, with where each came from (printed).
type Facts struct {
	KubernetesVersion string
	PodCIDRs          []netip.Prefix
	ServiceCIDR       string
	NodeCIDR          string
	IPFamilies        []string
	KubeProxyEnabled  bool
	KubeProxyMode     string
	// Sources says where each fact came from, in print order ("pod CIDR: 10.244.0.0/16 (kubeadm-config)").
	Sources []string
}

// Observe reads the facts the cluster tells: the server version (given by the caller from
// discovery), kube-system/kubeadm-config's networking, the Nodes' spec.podCIDRs and the kube-proxy
// ConfigMap. What is missing or forbidden stays empty.
func Observe(ctx context.Context, c client.Reader, serverVersion string) (Observed, error) {
	o := Observed{KubernetesVersion: strings.TrimPrefix(serverVersion, "v"), NodePodCIDRs: map[string][]string{}}
	if i := strings.IndexAny(o.KubernetesVersion, "-+"); i > 0 {
		o.KubernetesVersion = o.KubernetesVersion[:i]
	}
	if strings.HasPrefix(o.KubernetesVersion, "0.") {
		// An API server built without version stamping (a development build) says 0.0.0: unknown.
		o.KubernetesVersion = ""
	}
	var kubeadm corev1.ConfigMap
	switch err := c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "kubeadm-config"}, &kubeadm); {
	case apierrors.IsNotFound(err) || apierrors.IsForbidden(err):
	case err != nil:
		return Observed{}, fmt.Errorf("reading kube-system/kubeadm-config: %w", err)
	default:
		var cfg struct {
			Networking struct {
				PodSubnet     string `json:"podSubnet"`
				ServiceSubnet string `json:"serviceSubnet"`
			} `json:"networking"`
		}
		if err := yaml.Unmarshal([]byte(kubeadm.Data["ClusterConfiguration"]), &cfg); err != nil {
			return Observed{}, fmt.Errorf("kube-system/kubeadm-config ClusterConfiguration: %w", err)
		}
		if cfg.Networking.PodSubnet != "" {
			o.PodCIDR, o.PodCIDRSource = cfg.Networking.PodSubnet, "kube-system/kubeadm-config networking.podSubnet"
		}
		if cfg.Networking.ServiceSubnet != "" {
			o.ServiceCIDR, o.ServiceCIDRSource = cfg.Networking.ServiceSubnet, "kube-system/kubeadm-config networking.serviceSubnet"
		}
	}
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes); err != nil && !apierrors.IsForbidden(err) {
		return Observed{}, fmt.Errorf("listing Nodes: %w", err)
	}
	for _, n := range nodes.Items {
		cidrs := n.Spec.PodCIDRs
		if len(cidrs) == 0 && n.Spec.PodCIDR != "" {
			cidrs = []string{n.Spec.PodCIDR}
		}
		if len(cidrs) > 0 {
			o.NodePodCIDRs[n.Name] = cidrs
		}
	}
	var proxy corev1.ConfigMap
	switch err := c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "kube-proxy"}, &proxy); {
	case apierrors.IsNotFound(err) || apierrors.IsForbidden(err):
	case err != nil:
		return Observed{}, fmt.Errorf("reading kube-system/kube-proxy: %w", err)
	default:
		var cfg struct {
			Mode string `json:"mode"`
		}
		if err := yaml.Unmarshal([]byte(proxy.Data["config.conf"]), &cfg); err != nil {
			return Observed{}, fmt.Errorf("kube-system/kube-proxy config.conf: %w", err)
		}
		mode := "IPTables" // kube-proxy's default on Linux
		for m, spelt := range proxyModes {
			if strings.EqualFold(cfg.Mode, spelt) {
				mode = m
			}
		}
		o.KubeProxy = &FileKubeProxy{Enabled: ptr.To(true), Mode: mode}
	}
	return o, nil
}

// Complete merges the file's facts with the observed ones: a fact the file leaves out is taken
// from the cluster; a fact both state differently is an error naming both. The pod CIDR is
// required from one of them; every Node's spec.podCIDRs must lie inside it.
func Complete(file FileFacts, obs Observed) (Facts, field.ErrorList) {
	p := pathFacts
	var errs field.ErrorList
	var f Facts
	pick := func(name, fileVal, clusterVal, clusterSource string, same func(a, b string) bool) string {
		switch {
		case fileVal != "" && clusterVal != "" && !same(fileVal, clusterVal):
			errs = append(errs, field.Invalid(p.Child(name), fileVal, fmt.Sprintf("the cluster says %s (%s): the file contradicts the cluster; correct the file or leave the field out", clusterVal, clusterSource)))
			return fileVal
		case fileVal != "":
			f.Sources = append(f.Sources, fmt.Sprintf("%s: %s (from the file)", name, fileVal))
			return fileVal
		case clusterVal != "":
			f.Sources = append(f.Sources, fmt.Sprintf("%s: %s (from %s)", name, clusterVal, clusterSource))
			return clusterVal
		}
		return ""
	}
	f.KubernetesVersion = pick("kubernetesVersion", strings.TrimPrefix(file.KubernetesVersion, "v"), obs.KubernetesVersion, "the API server's version", sameMinor)
	if f.KubernetesVersion == "" {
		errs = append(errs, field.Required(p.Child("kubernetesVersion"), "the API server does not tell its version (a development build says 0.0.0): state it"))
	}
	pod := pick("podCIDR", file.PodCIDR, obs.PodCIDR, obs.PodCIDRSource, sameCIDRs)
	if pod == "" {
		errs = append(errs, field.Required(p.Child("podCIDR"), "the cluster has no kube-system/kubeadm-config with networking.podSubnet: state the pod network"))
	} else if cidrs, err := parseCIDRs(pod); err != nil {
		errs = append(errs, field.Invalid(p.Child("podCIDR"), pod, fmt.Sprintf("%s: %v", obs.PodCIDRSource, err)))
	} else {
		f.PodCIDRs = cidrs
		names := make([]string, 0, len(obs.NodePodCIDRs))
		for n := range obs.NodePodCIDRs {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			for _, nc := range obs.NodePodCIDRs[n] {
				np, err := netip.ParsePrefix(nc)
				if err != nil || !inside(np, cidrs) {
					errs = append(errs, field.Invalid(p.Child("podCIDR"), pod, fmt.Sprintf("Node %s has spec.podCIDRs %s, outside the pod network: the pod network is wrong, or the Node was allocated from another one", n, nc)))
				}
			}
		}
		if len(names) > 0 {
			f.Sources = append(f.Sources, fmt.Sprintf("Node pod CIDRs: %d Node(s), inside the pod network", len(names)))
		}
	}
	f.ServiceCIDR = pick("serviceCIDR", file.ServiceCIDR, obs.ServiceCIDR, obs.ServiceCIDRSource, sameCIDRs)
	f.NodeCIDR = file.NodeCIDR
	if f.NodeCIDR != "" {
		f.Sources = append(f.Sources, fmt.Sprintf("nodeCIDR: %s (from the file)", f.NodeCIDR))
	}
	f.IPFamilies = file.IPFamilies
	if len(f.IPFamilies) == 0 {
		f.IPFamilies = families(f.PodCIDRs)
	} else if len(f.PodCIDRs) > 0 && !slices.Equal(sortedCopy(f.IPFamilies), sortedCopy(families(f.PodCIDRs))) {
		errs = append(errs, field.Invalid(p.Child("ipFamilies"), f.IPFamilies, fmt.Sprintf("the pod network %s is %s", pod, strings.Join(families(f.PodCIDRs), " and "))))
	}
	f.Sources = append(f.Sources, fmt.Sprintf("ipFamilies: %s", strings.Join(f.IPFamilies, ", ")))
	fileKP, obsKP := file.KubeProxy, obs.KubeProxy
	switch {
	case fileKP != nil && fileKP.Enabled != nil && !*fileKP.Enabled && obsKP != nil:
		errs = append(errs, field.Invalid(p.Child("kubeProxy", "enabled"), false, "the cluster has the kube-system/kube-proxy ConfigMap: kube-proxy runs"))
	case fileKP != nil && fileKP.Enabled != nil && !*fileKP.Enabled:
		f.Sources = append(f.Sources, "kube-proxy: not running (from the file)")
	case fileKP != nil && fileKP.Mode != "" && obsKP != nil && fileKP.Mode != obsKP.Mode:
		errs = append(errs, field.Invalid(p.Child("kubeProxy", "mode"), fileKP.Mode, fmt.Sprintf("the cluster says %s (kube-system/kube-proxy config.conf mode)", obsKP.Mode)))
	case fileKP != nil && (fileKP.Mode != "" || fileKP.Enabled != nil):
		f.KubeProxyEnabled, f.KubeProxyMode = true, fileKP.Mode
		if f.KubeProxyMode == "" && obsKP != nil {
			f.KubeProxyMode = obsKP.Mode
		}
		f.Sources = append(f.Sources, fmt.Sprintf("kube-proxy: running, mode %s (from the file)", f.KubeProxyMode))
	case obsKP != nil:
		f.KubeProxyEnabled, f.KubeProxyMode = true, obsKP.Mode
		f.Sources = append(f.Sources, fmt.Sprintf("kube-proxy: running, mode %s (from kube-system/kube-proxy)", obsKP.Mode))
	default:
		f.Sources = append(f.Sources, "kube-proxy: not running (no kube-system/kube-proxy ConfigMap)")
	}
	return f, errs
}

func sortedCopy(s []string) []string { c := slices.Clone(s); slices.Sort(c); return c }

func sameMinor(a, b string) bool {
	ma, mb := strings.Split(a, "."), strings.Split(b, ".")
	return len(ma) >= 2 && len(mb) >= 2 && ma[0] == mb[0] && ma[1] == mb[1]
}

func sameCIDRs(a, b string) bool {
	pa, errA := parseCIDRs(a)
	pb, errB := parseCIDRs(b)
	return errA == nil && errB == nil && slices.Equal(pa, pb)
}

func inside(p netip.Prefix, outer []netip.Prefix) bool {
	for _, o := range outer {
		if o.Bits() <= p.Bits() && o.Contains(p.Addr()) {
			return true
		}
	}
	return false
}

// Shoot builds the Gardener-free source of a render: a Shoot that states the facts and carries
// the NetworkConfig, as `render --shoot` reads one. Nothing of it reaches the cluster; only the
// pipeline reads it. Its paths are mapped back to the file's by FilePath.
func (f Facts) Shoot(rawConfig []byte) *gardencorev1beta1.Shoot {
	s := &gardencorev1beta1.Shoot{}
	s.Name, s.Namespace = "standalone", "garden-standalone"
	n := &gardencorev1beta1.Networking{Type: ptr.To("calico")}
	if len(f.PodCIDRs) > 0 {
		n.Pods = ptr.To(f.PodCIDRs[0].String())
	}
	if f.NodeCIDR != "" {
		n.Nodes = ptr.To(f.NodeCIDR)
	}
	if f.ServiceCIDR != "" {
		n.Services = ptr.To(strings.Split(f.ServiceCIDR, ",")[0])
	}
	for _, fam := range f.IPFamilies {
		n.IPFamilies = append(n.IPFamilies, gardencorev1beta1.IPFamily(fam))
	}
	if len(rawConfig) > 0 {
		n.ProviderConfig = &runtime.RawExtension{Raw: rawConfig}
	}
	s.Spec.Networking = n
	if len(f.PodCIDRs) > 1 {
		st := &gardencorev1beta1.NetworkingStatus{}
		for _, p := range f.PodCIDRs {
			st.Pods = append(st.Pods, p.String())
		}
		s.Status.Networking = st
	}
	s.Spec.Kubernetes.Version = f.KubernetesVersion
	kp := &gardencorev1beta1.KubeProxyConfig{Enabled: ptr.To(f.KubeProxyEnabled)}
	if f.KubeProxyMode != "" {
		kp.Mode = ptr.To(gardencorev1beta1.ProxyMode(f.KubeProxyMode))
	}
	s.Spec.Kubernetes.KubeProxy = kp
	// A plain cluster has workers (its Nodes); the provider type names no cloud.
	s.Spec.Provider = gardencorev1beta1.Provider{Type: "standalone", Workers: []gardencorev1beta1.Worker{{Name: "nodes"}}}
	return s
}

// FilePath maps a path the pipeline reports in the Shoot to where the user wrote the value in the
// cluster file.
func FilePath(shootPath string) string {
	for _, m := range []struct{ from, to string }{
		{"spec.networking.providerConfig", "networkConfig"},
		{"spec.networking.pods", "cluster.podCIDR"},
		{"spec.networking.nodes", "cluster.nodeCIDR"},
		{"spec.networking.services", "cluster.serviceCIDR"},
		{"spec.networking.ipFamilies", "cluster.ipFamilies"},
		{"spec.kubernetes.kubeProxy", "cluster.kubeProxy"},
		{"spec.kubernetes.version", "cluster.kubernetesVersion"},
	} {
		if shootPath == m.from || strings.HasPrefix(shootPath, m.from+".") || strings.HasPrefix(shootPath, m.from+"[") {
			return m.to + shootPath[len(m.from):]
		}
	}
	return shootPath
}

// FileErrors rewrites the paths of errors from the pipeline to the file's.
func FileErrors(errs field.ErrorList) field.ErrorList {
	out := make(field.ErrorList, 0, len(errs))
	for _, e := range errs {
		c := *e
		c.Field = FilePath(e.Field)
		out = append(out, &c)
	}
	return out
}
