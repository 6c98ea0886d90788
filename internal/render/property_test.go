package render_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/render"
)

// pick returns nil or one of the values.
func pick[T any](r *rand.Rand, vs ...T) *T {
	i := r.IntN(len(vs) + 1)
	if i == len(vs) {
		return nil
	}
	v := vs[i]
	return &v
}

func randomConfig(r *rand.Rand) *calicov1alpha1.NetworkConfig {
	c := &calicov1alpha1.NetworkConfig{
		TypeMeta: calicov1alpha1.NetworkConfig{}.TypeMeta,
	}
	c.APIVersion, c.Kind = "calico.networking.extensions.gardener.cloud/v1alpha1", "NetworkConfig"
	c.Backend = pick[calicov1alpha1.Backend](r, "bird", "none", "vxlan")
	if r.IntN(3) == 0 {
		c.IPAM = &calicov1alpha1.IPAM{Type: *ptr.To(calicov1alpha1.IPAMType("")), CIDR: pick(r, "usePodCidr", "usePodCIDR", "100.96.0.0/11", "2001:db8:1::/56", "usePodCidrIPv6")}
		if t := pick[calicov1alpha1.IPAMType](r, "host-local", "calico-ipam"); t != nil {
			c.IPAM.Type = *t
		}
	}
	modes := []calicov1alpha1.PoolMode{"Always", "Never", "CrossSubnet", "Off"}
	if r.IntN(3) == 0 {
		c.IPv4 = &calicov1alpha1.IPv4{
			Pool: pick[calicov1alpha1.Pool](r, "ipip", "vxlan"), Mode: pick(r, modes...),
			AutoDetectionMethod: pick(r, "interface=eth0", "can-reach=192.0.2.1", "first-found"),
		}
	}
	if r.IntN(3) == 0 {
		c.IPv6 = &calicov1alpha1.IPv6{
			Pool: pick[calicov1alpha1.Pool](r, "vxlan", "ipip"), Mode: pick(r, modes...),
			AutoDetectionMethod: pick(r, "interface=eth0"), SourceNATEnabled: pick(r, true, false),
		}
	}
	if b := pick(r, true, false); b != nil {
		c.Typha = &calicov1alpha1.Typha{Enabled: *b}
	}
	c.VethMTU = pick(r, "0", "1440", "9000")
	if b := pick(r, true, false); b != nil {
		c.EbpfDataplane = &calicov1alpha1.EbpfDataplane{Enabled: *b}
	}
	if b := pick(r, true, false); b != nil {
		c.Overlay = &calicov1alpha1.Overlay{Enabled: *b, CreatePodRoutes: pick(r, true, false)}
	}
	if b := pick(r, true, false); b != nil {
		c.SnatToUpstreamDNS = &calicov1alpha1.SnatToUpstreamDNS{Enabled: *b}
	}
	if m := pick[calicov1alpha1.AutoScalingMode](r, "cluster-proportional", "vpa", "static"); m != nil {
		c.AutoScaling = &calicov1alpha1.AutoScaling{Mode: *m}
		if r.IntN(2) == 0 {
			c.AutoScaling.Resources = &calicov1alpha1.StaticResources{
				Node: &corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
			}
		}
	}
	if b := pick(r, true, false); b != nil {
		c.VXLAN = &calicov1alpha1.VXLAN{Enabled: *b}
	}
	c.IPIP = pick(r, modes...)
	c.IPAutoDetectionMethod = pick(r, "interface=eth0", "cidr=10.250.0.0/16")
	c.WireguardEncryption = r.IntN(2) == 0
	if b := pick(r, true, false); b != nil {
		c.BirdExporter = &calicov1alpha1.BirdExporter{Enabled: *b}
	}
	if b := pick(r, true, false); b != nil {
		c.Multus = &calicov1alpha1.Multus{Enabled: *b, InstallCNIPlugins: pick(r, true, false)}
	}
	c.ServiceLoopPrevention = pick[calicov1alpha1.ServiceLoopPrevention](r, "Disabled", "Drop", "Reject")
	if b := pick(r, true, false); b != nil {
		c.KubeAPIServerGlobalNetworkSet = &calicov1alpha1.KubeAPIServerGlobalNetworkSet{Enabled: b}
	}
	return c
}

func randomShoot(r *rand.Rand, cfg *calicov1alpha1.NetworkConfig) (*gardencorev1beta1.Shoot, []string) {
	s := baseShoot()
	switch r.IntN(5) {
	case 0:
		ipv6Only(s)
	case 1:
		dualStack(s)
	case 2:
		// Dual-stack requested, nodes not migrated yet: rendered as IPv4 only.
		dualStack(s)
		s.Status.Constraints = []gardencorev1beta1.Condition{{Type: "DualStackNodesMigrationReady", Status: "Progressing"}}
	}
	if r.IntN(4) == 0 {
		noVPA(s)
	}
	switch r.IntN(4) {
	case 0:
		kubeProxyOff(s)
	case 1:
		s.Spec.Kubernetes.KubeProxy.Mode = ptr.To(gardencorev1beta1.ProxyModeNFTables)
	}
	if r.IntN(6) == 0 {
		s.Spec.Hibernation = &gardencorev1beta1.Hibernation{Enabled: ptr.To(true)}
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		panic(err)
	}
	s.Spec.Networking.ProviderConfig = &runtime.RawExtension{Raw: raw}
	var addrs []string
	// Addresses are supplied when the set is asked for (as the controller resolves them).
	if cfg.KubeAPIServerGlobalNetworkSet != nil && cfg.KubeAPIServerGlobalNetworkSet.Enabled != nil && *cfg.KubeAPIServerGlobalNetworkSet.Enabled {
		addrs = []string{"192.0.2.34", "2001:db8::1"}
	}
	return s, addrs
}

// invariants checks what the API server does not: every container has an image, env names are
// unique per container, and every mounted volume exists in the pod.
func invariants(objs []client.Object) []string {
	var problems []string
	for _, o := range objs {
		var spec *corev1.PodSpec
		switch w := o.(type) {
		case *appsv1.DaemonSet:
			spec = &w.Spec.Template.Spec
		case *appsv1.Deployment:
			spec = &w.Spec.Template.Spec
		default:
			continue
		}
		volumes := map[string]bool{}
		for _, v := range spec.Volumes {
			volumes[v.Name] = true
		}
		for _, c := range append(append([]corev1.Container(nil), spec.InitContainers...), spec.Containers...) {
			if c.Image == "" {
				problems = append(problems, fmt.Sprintf("%s/%s container %s has no image", o.GetNamespace(), o.GetName(), c.Name))
			}
			seen := map[string]bool{}
			for _, e := range c.Env {
				if seen[e.Name] {
					problems = append(problems, fmt.Sprintf("%s container %s sets %s twice", o.GetName(), c.Name, e.Name))
				}
				seen[e.Name] = true
			}
			for _, m := range c.VolumeMounts {
				if !volumes[m.Name] {
					problems = append(problems, fmt.Sprintf("%s container %s mounts missing volume %s", o.GetName(), c.Name, m.Name))
				}
			}
		}
	}
	return problems
}

// TestValidConfigsRender is the property of DESIGN.md decision 2: for generated configs, whatever
// values/render reject, validation rejected first; and every valid config renders.
func TestValidConfigsRender(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 20000
	valid, gaps := 0, 0
	for i := range n {
		cfg := randomConfig(r)
		s, addrs := randomShoot(r, cfg)
		nonPriv := r.IntN(2) == 0
		opts, validErrs, resolveErrs := resolve(s, nonPriv, addrs)
		if len(validErrs) > 0 {
			continue
		}
		valid++
		if len(resolveErrs) > 0 {
			gaps++
			if gaps <= 10 {
				raw, _ := json.Marshal(cfg)
				t.Errorf("case %d: validation accepted but values rejected: %v\nconfig: %s\nfamilies: %v", i, resolveErrs.ToAggregate(), raw, s.Spec.Networking.IPFamilies)
			}
			continue
		}
		objs, err := render.Shoot(&opts)
		if err != nil {
			t.Errorf("case %d: render failed for valid config: %v", i, err)
			continue
		}
		if _, err := manifest.Build(nil, objs); err != nil {
			t.Errorf("case %d: serializing failed: %v", i, err)
		}
		for _, problem := range invariants(objs) {
			t.Errorf("case %d: %s", i, problem)
		}
	}
	if gaps > 0 {
		t.Errorf("%d of %d valid configs were rejected by values", gaps, valid)
	}
	// The generator must reach the interesting part of the space, or the property says nothing.
	if valid < n/20 {
		t.Errorf("only %d of %d generated configs were valid; the generator needs tuning", valid, n)
	}
	t.Logf("%d of %d generated configs valid", valid, n)
}
