package render_test

import (
	"net/netip"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

func scenarioByName(t testing.TB, name string) scenario {
	t.Helper()
	for _, sc := range scenarios {
		if sc.Name == name {
			return sc
		}
	}
	t.Fatalf("no scenario %q", name)
	return scenario{}
}

// renderScenario renders a scenario's shoot objects (rendertest.Shoot: without the static CRDs).
func renderScenario(t testing.TB, sc scenario) []client.Object {
	t.Helper()
	opts := scenarioOptions(t, sc)
	objs, err := rendertest.Shoot(&opts)
	if err != nil {
		t.Fatalf("scenario %s: %v", sc.Name, err)
	}
	return objs
}

type id struct{ Kind, Name string }

func ids(objs []client.Object) map[id]client.Object {
	m := map[id]client.Object{}
	for _, o := range objs {
		m[id{o.GetObjectKind().GroupVersionKind().Kind, o.GetName()}] = o
	}
	return m
}

func calicoNode(t *testing.T, objs []client.Object) *appsv1.DaemonSet {
	t.Helper()
	ds, ok := ids(objs)[id{"DaemonSet", "calico-node"}].(*appsv1.DaemonSet)
	if !ok {
		t.Fatal("no calico-node DaemonSet")
	}
	return ds
}

func container(t *testing.T, cs []corev1.Container, name string) *corev1.Container {
	t.Helper()
	for i := range cs {
		if cs[i].Name == name {
			return &cs[i]
		}
	}
	return nil
}

func envValue(c *corev1.Container, name string) (string, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

// TestDisabledFeaturesRenderNothing: switching a feature off removes every object that only
// serves it (the reference kept typha's monitoring Service and NetworkPolicy).
func TestDisabledFeaturesRenderNothing(t *testing.T) {
	tests := []struct {
		scenario string
		absent   []id
	}{
		{"typha-disabled", []id{
			{"Deployment", "calico-typha-deploy"}, {"Service", "calico-typha"}, {"PodDisruptionBudget", "calico-typha"},
			{"ServiceAccount", "calico-typha"}, {"Service", "calico-typha-monitoring"},
			{"NetworkPolicy", "gardener.cloud--allow-from-calico-node"}, {"Deployment", "calico-typha-horizontal-autoscaler"},
			{"Deployment", "calico-typha-vertical-autoscaler"}, {"ClusterRole", "typha-cpha"}, {"ClusterRole", "typha-cpva"},
		}},
		{"backend-none", []id{
			{"Deployment", "calico-kube-controllers"}, {"ClusterRole", "calico-kube-controllers"},
			{"PodDisruptionBudget", "calico-kube-controllers"}, {"VerticalPodAutoscaler", "calico-kube-controllers"},
		}},
		{"default", []id{
			{"Service", "calico-bird-monitoring"}, {"DaemonSet", "multus"}, {"GlobalNetworkSet", "gardener-kube-apiserver"},
			{"IPPool", "default-ipv4-ippool"}, {"VerticalPodAutoscaler", "calico-node"},
		}},
		{"static-with-resources", []id{
			{"Deployment", "calico-node-vertical-autoscaler"}, {"Deployment", "calico-typha-vertical-autoscaler"},
			{"VerticalPodAutoscaler", "calico-node"}, {"VerticalPodAutoscaler", "calico-typha"},
		}},
		{"global-network-set-hibernated", []id{{"GlobalNetworkSet", "gardener-kube-apiserver"}}},
		{"non-privileged-overlay", []id{{"Service", "calico-bird-monitoring"}}},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			got := ids(renderScenario(t, scenarioByName(t, tt.scenario)))
			for _, a := range tt.absent {
				if _, ok := got[a]; ok {
					t.Errorf("%v is rendered although its feature is off", a)
				}
			}
		})
	}
}

// TestChecksumFollowsConfig: calico-node's pods roll exactly when calico-config changes.
func TestChecksumFollowsConfig(t *testing.T) {
	sum := func(name string) string {
		return calicoNode(t, renderScenario(t, scenarioByName(t, name))).Spec.Template.Annotations["checksum/configmap-calico"]
	}
	base := sum("default")
	if len(base) != 64 {
		t.Fatalf("checksum %q is not a sha256 hex digest", base)
	}
	for _, changed := range []string{"service-loop-prevention-mtu", "typha-disabled", "calico-ipam", "backend-none"} {
		if sum(changed) == base {
			t.Errorf("%s changes calico-config but not the checksum", changed)
		}
	}
	// WireGuard is an env var of calico-node, not in calico-config.
	if sum("wireguard") != base {
		t.Errorf("wireguard does not change calico-config but changed the checksum")
	}
}

// TestGlobalNetworkSetContract checks the exact object networking-calico's end-user guide describes: the name, only the one
// label, /32 and /128 nets sorted and de-duplicated.
func TestGlobalNetworkSetContract(t *testing.T) {
	got := ids(renderScenario(t, scenarioByName(t, "global-network-set")))[id{"GlobalNetworkSet", "gardener-kube-apiserver"}]
	want := &calicov1.GlobalNetworkSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "crd.projectcalico.org/v1", Kind: "GlobalNetworkSet"},
		ObjectMeta: metav1.ObjectMeta{
			Name:   "gardener-kube-apiserver",
			Labels: map[string]string{"networking.gardener.cloud/endpoint": "kube-apiserver"},
		},
		Spec: calicov1.GlobalNetworkSetSpec{Nets: []string{"192.0.2.7/32", "192.0.2.34/32", "198.51.100.1/32", "2001:db8::10/128"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GlobalNetworkSet (-want +got):\n%s", diff)
	}
}

// TestNoEmptyGlobalNetworkSet: render never produces the set without nets, even for Options built by hand.
func TestNoEmptyGlobalNetworkSet(t *testing.T) {
	sc := scenarioByName(t, "default")
	opts, _, _ := resolve(shootOf(sc), false, nil)
	opts.KubeAPIServerNets = []netip.Prefix{}
	objs, err := rendertest.Shoot(&opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ids(objs)[id{"GlobalNetworkSet", "gardener-kube-apiserver"}]; ok {
		t.Error("an empty GlobalNetworkSet was rendered")
	}
}

// TestNonPrivilegedCalicoNode checks section 3.7 of the reference.
func TestNonPrivilegedCalicoNode(t *testing.T) {
	ds := calicoNode(t, renderScenario(t, scenarioByName(t, "non-privileged-overlay-disabled")))
	spec := ds.Spec.Template.Spec
	node := container(t, spec.Containers, "calico-node")
	want := &corev1.SecurityContext{
		RunAsUser: ptr.To[int64](999), RunAsGroup: ptr.To[int64](0), Privileged: ptr.To(false), AllowPrivilegeEscalation: ptr.To(false),
		Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_RAW", "NET_ADMIN", "NET_BIND_SERVICE"}},
	}
	if diff := cmp.Diff(want, node.SecurityContext); diff != "" {
		t.Errorf("calico-node securityContext (-want +got):\n%s", diff)
	}
	init := container(t, spec.InitContainers, "hostpath-init")
	if init == nil {
		t.Fatal("no hostpath-init init container")
	}
	if v, _ := envValue(init, "NODE_USER_ID"); v != "999" {
		t.Errorf("hostpath-init NODE_USER_ID = %q, want 999", v)
	}
	snat := container(t, spec.Containers, "add-snat-rule-to-upstream-dns")
	wantSNAT := &corev1.SecurityContext{Privileged: ptr.To(false), AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}}}
	if diff := cmp.Diff(wantSNAT, snat.SecurityContext); diff != "" {
		t.Errorf("add-snat securityContext (-want +got):\n%s", diff)
	}
	var vols []string
	for _, v := range spec.Volumes {
		vols = append(vols, v.Name)
	}
	wantVols := []string{"lib-modules", "var-run", "var-lib", "var-log", "xtables-lock", "cni-bin-dir", "cni-net-dir", "cni-log-dir", "policysync"}
	if diff := cmp.Diff(wantVols, vols); diff != "" {
		t.Errorf("volumes (-want +got):\n%s", diff)
	}
	// Unchanged: the other init containers stay privileged.
	for _, name := range []string{"cleanup-routes", "log-mtu-issues", "install-cni"} {
		if c := container(t, spec.InitContainers, name); c == nil || c.SecurityContext == nil || !*c.SecurityContext.Privileged {
			t.Errorf("init container %s must stay privileged", name)
		}
	}
}

// TestEBPFVariant checks the eBPF init container, mounts and env, and that the gate is ignored.
func TestEBPFVariant(t *testing.T) {
	spec := calicoNode(t, renderScenario(t, scenarioByName(t, "ebpf-non-privileged-gate"))).Spec.Template.Spec
	if container(t, spec.InitContainers, "ebpf-bootstrap") == nil {
		t.Error("no ebpf-bootstrap init container")
	}
	if container(t, spec.InitContainers, "hostpath-init") != nil {
		t.Error("eBPF must run privileged, but hostpath-init was rendered")
	}
	node := container(t, spec.Containers, "calico-node")
	for name, want := range map[string]string{"FELIX_BPFENABLED": "true", "FELIX_BPFKUBEPROXYIPTABLESCLEANUPENABLED": "true"} {
		if got, _ := envValue(node, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if _, ok := envValue(node, "FELIX_BPFKUBEPROXYHEALTHZPORT"); ok {
		t.Error("kube-proxy is off: no healthz port override expected")
	}
	onNode := container(t, calicoNode(t, renderScenario(t, scenarioByName(t, "ebpf-kube-proxy-on"))).Spec.Template.Spec.Containers, "calico-node")
	if got, _ := envValue(onNode, "FELIX_BPFKUBEPROXYHEALTHZPORT"); got != "10257" {
		t.Errorf("with kube-proxy on, FELIX_BPFKUBEPROXYHEALTHZPORT = %q, want 10257", got)
	}
	// Felix reads only the correctly spelt name (FelixConfiguration bpfKubeProxyHealthzPort).
	if got, ok := envValue(onNode, "FELIX_BPFKUBEPROXYHEALTZPORT"); ok {
		t.Errorf("FELIX_BPFKUBEPROXYHEALTZPORT = %q rendered; Felix ignores the misspelt name", got)
	}
	// Reference mode keeps the reference's misspelt name beside the correct one:
	// harmless, and dropping it would roll calico-node at the swap-in.
	sc, err := rendertest.ScenarioNamed("ebpf-kube-proxy-on")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := rendertest.RenderCompat(sc, nil, calicov1alpha1.CompatibilityReference)
	if err != nil {
		t.Fatal(err)
	}
	refNode := container(t, ref.Node.Spec.Template.Spec.Containers, "calico-node")
	for _, name := range []string{"FELIX_BPFKUBEPROXYHEALTZPORT", "FELIX_BPFKUBEPROXYHEALTHZPORT"} {
		if got, _ := envValue(refNode, name); got != "10257" {
			t.Errorf("Reference mode: %s = %q, want 10257 (as the reference)", name, got)
		}
	}
}

// TestLogMTUIssuesXTablesLock: in Native mode log-mtu-issues mounts the host's iptables lock; in
// Reference mode it is the reference's init container, without mounts.
func TestLogMTUIssuesXTablesLock(t *testing.T) {
	sc, err := rendertest.ScenarioNamed("default")
	if err != nil {
		t.Fatal(err)
	}
	for mode, want := range map[calicov1alpha1.CompatibilityMode][]corev1.VolumeMount{
		calicov1alpha1.CompatibilityNative:    {{Name: "xtables-lock", MountPath: "/run/xtables.lock"}},
		calicov1alpha1.CompatibilityReference: nil,
	} {
		r, err := rendertest.RenderCompat(sc, nil, mode)
		if err != nil {
			t.Fatal(err)
		}
		c := container(t, r.Node.Spec.Template.Spec.InitContainers, "log-mtu-issues")
		if c == nil {
			t.Fatalf("%s: no log-mtu-issues init container", mode)
		}
		if diff := cmp.Diff(want, c.VolumeMounts); diff != "" {
			t.Errorf("%s: log-mtu-issues volumeMounts (-want +got):\n%s", mode, diff)
		}
	}
}

// TestUsageReportingOff: Calico's usage reporting is off in every scenario.
func TestUsageReportingOff(t *testing.T) {
	for _, sc := range everyRelease {
		node := container(t, calicoNode(t, renderScenario(t, sc)).Spec.Template.Spec.Containers, "calico-node")
		if got, _ := envValue(node, "FELIX_USAGEREPORTINGENABLED"); got != "false" {
			t.Errorf("%s: FELIX_USAGEREPORTINGENABLED = %q, want false", sc.Name, got)
		}
	}
}

// TestTyphaHonoursVPAMinimum: in vpa mode typha's requests follow resources.typha (the reference
// only did this for calico-node).
func TestTyphaHonoursVPAMinimum(t *testing.T) {
	objs := ids(renderScenario(t, scenarioByName(t, "vpa-with-resources")))
	d := objs[id{"Deployment", "calico-typha-deploy"}].(*appsv1.Deployment)
	req := d.Spec.Template.Spec.Containers[0].Resources.Requests
	if req.Cpu().String() != "50m" || req.Memory().String() != "64Mi" {
		t.Errorf("typha requests %s/%s, want 50m/64Mi", req.Cpu(), req.Memory())
	}
}

func TestRenderRejectsImpossibleOptions(t *testing.T) {
	_, err := rendertest.Shoot(&values.Options{IPv4: true, Backend: "bird"})
	want := "rendering shoot objects: IPv4 is enabled without an IPv4 pod CIDR\nthe calico-node and calico-cni images are not set\na Calico component has no release (values.Options.Calico)"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestAzureEBPFDataInterfaces: with eBPF on Azure, Felix's data-interface pattern must not match
// the accelerated-networking VF (enP<n>s<m>) but still match the synthetic NIC and Calico's own
// devices; nowhere else is the pattern set (networking-calico's end-user guide).
func TestAzureEBPFDataInterfaces(t *testing.T) {
	azureWithoutEBPF := scenario{Name: "azure-without-ebpf", Shoot: func(s *gardencorev1beta1.Shoot) { s.Spec.Provider.Type = "azure" }}
	for _, tc := range []struct {
		sc   scenario
		want bool
	}{
		{scenarioByName(t, "ebpf-azure"), true},
		{azureWithoutEBPF, false},
		{scenarioByName(t, "ebpf-kube-proxy-off"), false},
		{scenarioByName(t, "default"), false},
	} {
		node := container(t, calicoNode(t, renderScenario(t, tc.sc)).Spec.Template.Spec.Containers, "calico-node")
		pattern, ok := envValue(node, "FELIX_BPFDATAIFACEPATTERN")
		if ok != tc.want {
			t.Errorf("%s: FELIX_BPFDATAIFACEPATTERN set=%v, want %v", tc.sc.Name, ok, tc.want)
		}
		if !ok {
			continue
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			t.Fatalf("%s: pattern %q: %v", tc.sc.Name, pattern, err)
		}
		for _, iface := range []string{"enP12345s1", "enP1s1", "enP30832p0s2"} {
			if re.MatchString(iface) {
				t.Errorf("%s: pattern matches accelerated-networking interface %s", tc.sc.Name, iface)
			}
		}
		for _, iface := range []string{"eth0", "eth1", "ens5", "enp0s3", "tunl0", "vxlan.calico", "vxlan-v6.calico", "wireguard.cali", "wg-v6.cali"} {
			if !re.MatchString(iface) {
				t.Errorf("%s: pattern does not match data interface %s", tc.sc.Name, iface)
			}
		}
	}
}
