package standalone

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"
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
	// KubernetesVersionSource says where the Kubernetes version came from (for messages).
	KubernetesVersionSource string
	PodCIDRs                []netip.Prefix
	ServiceCIDR             string
	NodeCIDR                string
	IPFamilies              []string
	KubeProxyEnabled        bool
	KubeProxyMode           string
	// PodCIDRFromFile is true when the file states the pod network (then a running pool of another
	// CIDR is a contradiction the file makes, a blocker).
	PodCIDRFromFile bool
	// Sources says where each fact came from, in print order ("pod CIDR: 10.244.0.0/16 (kubeadm-config)").
	Sources []string
}

// Observe reads the facts the cluster tells: the server version (given by the caller from
// discovery), kube-system/kubeadm-config's networking, the Nodes' spec.podCIDRs and the kube-proxy
// ConfigMap. What is missing or forbidden stays empty.
func Observe(ctx context.Context, c client.Reader, serverVersion string) (Observed, error) {
	o := Observed{KubernetesVersion: kubernetesVersion(serverVersion), NodePodCIDRs: map[string][]string{}}
	if err := observeKubeadm(ctx, c, &o); err != nil {
		return Observed{}, err
	}
	if err := observeNodes(ctx, c, &o); err != nil {
		return Observed{}, err
	}
	if err := observeKubeProxy(ctx, c, &o); err != nil {
		return Observed{}, err
	}
	return o, nil
}

// kubernetesVersion is MAJOR.MINOR.PATCH of the API server's version ("" when it does not tell).
func kubernetesVersion(serverVersion string) string {
	v := strings.TrimPrefix(serverVersion, "v")
	if i := strings.IndexAny(v, "-+"); i > 0 {
		v = v[:i]
	}
	if strings.HasPrefix(v, "0.") {
		// An API server built without version stamping (a development build) says 0.0.0: unknown.
		return ""
	}
	return v
}

// readKubeSystemConfig decodes the YAML under key of the kube-system ConfigMap name into v; found
// is false when the ConfigMap is missing or reading it is forbidden.
func readKubeSystemConfig(ctx context.Context, c client.Reader, name, key string, v any) (found bool, err error) {
	var cm corev1.ConfigMap
	switch err := c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: name}, &cm); {
	case apierrors.IsNotFound(err) || apierrors.IsForbidden(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("reading kube-system/%s: %w", name, err)
	}
	if err := yaml.Unmarshal([]byte(cm.Data[key]), v); err != nil {
		return false, fmt.Errorf("kube-system/%s %s: %w", name, key, err)
	}
	return true, nil
}

// observeKubeadm reads the pod and service networks kubeadm was given.
func observeKubeadm(ctx context.Context, c client.Reader, o *Observed) error {
	var cfg struct {
		Networking struct {
			PodSubnet     string `json:"podSubnet"`
			ServiceSubnet string `json:"serviceSubnet"`
		} `json:"networking"`
	}
	if _, err := readKubeSystemConfig(ctx, c, "kubeadm-config", "ClusterConfiguration", &cfg); err != nil {
		return err
	}
	if cfg.Networking.PodSubnet != "" {
		o.PodCIDR, o.PodCIDRSource = cfg.Networking.PodSubnet, "kube-system/kubeadm-config networking.podSubnet"
	}
	if cfg.Networking.ServiceSubnet != "" {
		o.ServiceCIDR, o.ServiceCIDRSource = cfg.Networking.ServiceSubnet, "kube-system/kubeadm-config networking.serviceSubnet"
	}
	return nil
}

// observeNodes reads the Nodes' pod CIDRs (spec.podCIDRs, else spec.podCIDR).
func observeNodes(ctx context.Context, c client.Reader, o *Observed) error {
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes); err != nil && !apierrors.IsForbidden(err) {
		return fmt.Errorf("listing Nodes: %w", err)
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
	return nil
}

// observeKubeProxy reads whether kube-proxy runs (its ConfigMap exists) and in which mode.
func observeKubeProxy(ctx context.Context, c client.Reader, o *Observed) error {
	var cfg struct {
		Mode string `json:"mode"`
	}
	found, err := readKubeSystemConfig(ctx, c, "kube-proxy", "config.conf", &cfg)
	if err != nil || !found {
		return err
	}
	mode := "IPTables" // kube-proxy's default on Linux
	for m, spelt := range proxyModes {
		if strings.EqualFold(cfg.Mode, spelt) {
			mode = m
		}
	}
	o.KubeProxy = &FileKubeProxy{Enabled: ptr.To(true), Mode: mode}
	return nil
}

// Complete merges the file's facts with the observed ones: a fact the file leaves out is taken
// from the cluster; a fact both state differently is an error naming both. The pod CIDR is
// required from one of them; every Node's spec.podCIDRs must lie inside it.
func Complete(file FileFacts, obs Observed) (Facts, field.ErrorList) {
	c := &completion{}
	c.kubernetesVersion(file, obs)
	pod := c.podNetwork(file, obs)
	c.f.ServiceCIDR = c.pick("serviceCIDR", file.ServiceCIDR, obs.ServiceCIDR, obs.ServiceCIDRSource, sameCIDRs)
	c.f.NodeCIDR = file.NodeCIDR
	if c.f.NodeCIDR != "" {
		c.f.Sources = append(c.f.Sources, fmt.Sprintf("nodeCIDR: %s (from the file)", c.f.NodeCIDR))
	}
	c.ipFamilies(file, pod)
	c.kubeProxy(file.KubeProxy, obs.KubeProxy)
	return c.f, c.errs
}

// completion is Complete's work: the facts so far and the errors found.
type completion struct {
	f    Facts
	errs field.ErrorList
}

// invalid records an error at cluster.<path>.
func (c *completion) invalid(value any, detail string, path ...string) {
	c.errs = append(c.errs, field.Invalid(pathFacts.Child(path[0], path[1:]...), value, detail))
}

// pick is the value of fact name: the file's, else the cluster's; both, differing, is an error.
func (c *completion) pick(name, fileVal, clusterVal, clusterSource string, same func(a, b string) bool) string {
	switch {
	case fileVal != "" && clusterVal != "" && !same(fileVal, clusterVal):
		c.invalid(fileVal, fmt.Sprintf("the cluster says %s (%s): the file contradicts the cluster; correct the file or leave the field out", clusterVal, clusterSource), name)
		return fileVal
	case fileVal != "":
		c.f.Sources = append(c.f.Sources, fmt.Sprintf("%s: %s (from the file)", name, fileVal))
		return fileVal
	case clusterVal != "":
		c.f.Sources = append(c.f.Sources, fmt.Sprintf("%s: %s (from %s)", name, clusterVal, clusterSource))
		return clusterVal
	}
	return ""
}

// kubernetesVersion completes the Kubernetes version, required from the file or the API server.
func (c *completion) kubernetesVersion(file FileFacts, obs Observed) {
	c.f.KubernetesVersion = c.pick("kubernetesVersion", strings.TrimPrefix(file.KubernetesVersion, "v"), obs.KubernetesVersion, "the API server's version", sameMinor)
	switch {
	case c.f.KubernetesVersion == "":
		c.errs = append(c.errs, field.Required(pathFacts.Child("kubernetesVersion"), "the API server does not tell its version (a development build says 0.0.0): state it"))
	case file.KubernetesVersion != "":
		c.f.KubernetesVersionSource = "cluster.kubernetesVersion of the file"
	default:
		c.f.KubernetesVersionSource = "the API server's version"
	}
}

// podNetwork completes the pod network (required) and checks the Nodes' pod CIDRs lie inside it.
// It returns the network as written.
func (c *completion) podNetwork(file FileFacts, obs Observed) string {
	pod := c.pick("podCIDR", file.PodCIDR, obs.PodCIDR, obs.PodCIDRSource, sameCIDRs)
	c.f.PodCIDRFromFile = file.PodCIDR != ""
	if pod == "" {
		c.errs = append(c.errs, field.Required(pathFacts.Child("podCIDR"), "the cluster has no kube-system/kubeadm-config with networking.podSubnet: state the pod network"))
		return pod
	}
	cidrs, err := parseCIDRs(pod)
	if err != nil {
		c.invalid(pod, fmt.Sprintf("%s: %v", obs.PodCIDRSource, err), "podCIDR")
		return pod
	}
	c.f.PodCIDRs = cidrs
	c.nodesInside(pod, cidrs, obs.NodePodCIDRs)
	return pod
}

// nodesInside checks every Node's pod CIDRs (by node name) lie inside the pod network, in name order.
func (c *completion) nodesInside(pod string, cidrs []netip.Prefix, nodePodCIDRs map[string][]string) {
	names := make([]string, 0, len(nodePodCIDRs))
	for n := range nodePodCIDRs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		for _, nc := range nodePodCIDRs[n] {
			np, err := netip.ParsePrefix(nc)
			if err != nil || !inside(np, cidrs) {
				c.invalid(pod, fmt.Sprintf("Node %s has spec.podCIDRs %s, outside the pod network: the pod network is wrong, or the Node was allocated from another one", n, nc), "podCIDR")
			}
		}
	}
	if len(names) > 0 {
		c.f.Sources = append(c.f.Sources, fmt.Sprintf("Node pod CIDRs: %d Node(s), inside the pod network", len(names)))
	}
}

// ipFamilies completes the IP families: the file's, which must be the pod network's, else the pod
// network's.
func (c *completion) ipFamilies(file FileFacts, pod string) {
	c.f.IPFamilies = file.IPFamilies
	if len(c.f.IPFamilies) == 0 {
		c.f.IPFamilies = families(c.f.PodCIDRs)
	} else if len(c.f.PodCIDRs) > 0 && !slices.Equal(sortedCopy(c.f.IPFamilies), sortedCopy(families(c.f.PodCIDRs))) {
		c.invalid(c.f.IPFamilies, fmt.Sprintf("the pod network %s is %s", pod, strings.Join(families(c.f.PodCIDRs), " and ")), "ipFamilies")
	}
	c.f.Sources = append(c.f.Sources, fmt.Sprintf("ipFamilies: %s", strings.Join(c.f.IPFamilies, ", ")))
}

// kubeProxy completes whether kube-proxy runs and its mode: the file's word, which must agree with
// the cluster's kube-proxy ConfigMap where that exists, else the ConfigMap's.
func (c *completion) kubeProxy(fileKP, obsKP *FileKubeProxy) {
	switch {
	case fileKP != nil && fileKP.Enabled != nil && !*fileKP.Enabled:
		if obsKP != nil {
			c.invalid(false, "the cluster has the kube-system/kube-proxy ConfigMap: kube-proxy runs", "kubeProxy", "enabled")
			return
		}
		c.f.Sources = append(c.f.Sources, "kube-proxy: not running (from the file)")
	case fileKP != nil && (fileKP.Mode != "" || fileKP.Enabled != nil):
		c.kubeProxyFromFile(fileKP, obsKP)
	case obsKP != nil:
		c.f.KubeProxyEnabled, c.f.KubeProxyMode = true, obsKP.Mode
		c.f.Sources = append(c.f.Sources, fmt.Sprintf("kube-proxy: running, mode %s (from kube-system/kube-proxy)", obsKP.Mode))
	default:
		c.f.Sources = append(c.f.Sources, "kube-proxy: not running (no kube-system/kube-proxy ConfigMap)")
	}
}

// kubeProxyFromFile takes a running kube-proxy from the file; its mode, when stated, must be the
// cluster's.
func (c *completion) kubeProxyFromFile(fileKP, obsKP *FileKubeProxy) {
	if fileKP.Mode != "" && obsKP != nil && fileKP.Mode != obsKP.Mode {
		c.invalid(fileKP.Mode, fmt.Sprintf("the cluster says %s (kube-system/kube-proxy config.conf mode)", obsKP.Mode), "kubeProxy", "mode")
		return
	}
	c.f.KubeProxyEnabled, c.f.KubeProxyMode = true, fileKP.Mode
	if c.f.KubeProxyMode == "" && obsKP != nil {
		c.f.KubeProxyMode = obsKP.Mode
	}
	c.f.Sources = append(c.f.Sources, fmt.Sprintf("kube-proxy: running, mode %s (from the file)", c.f.KubeProxyMode))
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

// FileErrors rewrites the paths of errors from the pipeline to the file's: the field of each
// error and the Shoot paths its detail quotes ("set spec.networking.providerConfig.ebpfDataplane.enabled:
// true" is networkConfig.ebpfDataplane.enabled in the file).
func FileErrors(errs field.ErrorList) field.ErrorList {
	out := make(field.ErrorList, 0, len(errs))
	for _, e := range errs {
		c := *e
		c.Field = FilePath(e.Field)
		c.Detail = shootPathInText.ReplaceAllStringFunc(e.Detail, FilePath)
		out = append(out, &c)
	}
	return out
}

// shootPathInText finds the Shoot paths a message quotes (FilePath leaves those it does not map).
var shootPathInText = regexp.MustCompile(`\bspec\.[A-Za-z0-9]+(?:\.[A-Za-z0-9]+|\[[0-9]+\])*`)
