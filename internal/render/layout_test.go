package render_test

import (
	"bytes"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// operatorOptions are the default scenario's options in the tigera operator's layout, with its
// Typha TLS when tls is set.
func operatorOptions(t *testing.T, tls bool) values.Options {
	t.Helper()
	o := scenarioOptions(t, scenarios[0])
	o.Layout = layout.TigeraOperator()
	if tls {
		tt := layout.TigeraOperatorTyphaTLS()
		o.TyphaTLS = &tt
	}
	return o
}

func shootObjects(t *testing.T, o values.Options) []client.Object {
	t.Helper()
	objs, err := rendertest.Shoot(&o)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// find returns the rendered object of kind in namespace ns named name, nil if there is none.
func find(objs []client.Object, kind, ns, name string) client.Object {
	for _, o := range objs {
		if o.GetObjectKind().GroupVersionKind().Kind == kind && o.GetNamespace() == ns && o.GetName() == name {
			return o
		}
	}
	return nil
}

func mustFind[T client.Object](t *testing.T, objs []client.Object, kind, ns, name string) T {
	t.Helper()
	o, ok := find(objs, kind, ns, name).(T)
	if !ok {
		t.Fatalf("no %s %s/%s rendered", kind, ns, name)
	}
	return o
}

func podContainer(t *testing.T, spec corev1.PodSpec, name string) corev1.Container {
	t.Helper()
	for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no container %s", name)
	return corev1.Container{}
}

func envOf(c corev1.Container, name string) (corev1.EnvVar, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e, true
		}
	}
	return corev1.EnvVar{}, false
}

// TestOperatorLayout: in the tigera operator's layout every namespaced object is in calico-system,
// and the workloads have the operator's names and (immutable) selectors, so applying them updates
// the operator's objects in place.
func TestOperatorLayout(t *testing.T) {
	objs := shootObjects(t, operatorOptions(t, false))
	for _, o := range objs {
		if ns := o.GetNamespace(); ns != "" && ns != "calico-system" {
			t.Errorf("%T %s/%s is not in calico-system", o, ns, o.GetName())
		}
	}
	const ns = "calico-system"

	ds := mustFind[*appsv1.DaemonSet](t, objs, "DaemonSet", ns, "calico-node")
	if d := cmp.Diff(map[string]string{"k8s-app": "calico-node"}, ds.Spec.Selector.MatchLabels); d != "" {
		t.Errorf("calico-node selector (-want +got):\n%s", d)
	}
	tl := ds.Spec.Template.Labels
	if tl["k8s-app"] != "calico-node" || tl["app.kubernetes.io/name"] != "calico-node" {
		t.Errorf("calico-node template labels %v lack k8s-app and app.kubernetes.io/name calico-node", tl)
	}
	if ds.Spec.Template.Spec.ServiceAccountName != "calico-node" {
		t.Errorf("calico-node runs as %q", ds.Spec.Template.Spec.ServiceAccountName)
	}

	typha := mustFind[*appsv1.Deployment](t, objs, "Deployment", ns, "calico-typha")
	if d := cmp.Diff(map[string]string{"k8s-app": "calico-typha"}, typha.Spec.Selector.MatchLabels); d != "" {
		t.Errorf("typha selector (-want +got):\n%s", d)
	}
	for what, l := range map[string]map[string]string{"metadata": typha.Labels, "template": typha.Spec.Template.Labels} {
		if l["k8s-app"] != "calico-typha" || l["app.kubernetes.io/name"] != "calico-typha" {
			t.Errorf("typha %s labels %v lack k8s-app and app.kubernetes.io/name calico-typha", what, l)
		}
	}
	if find(objs, "Deployment", ns, "calico-typha-deploy") != nil {
		t.Error("Gardener's calico-typha-deploy is rendered in the operator layout")
	}
	if e, _ := envOf(podContainer(t, typha.Spec.Template.Spec, "calico-typha"), "TYPHA_K8SNAMESPACE"); e.Value != ns {
		t.Errorf("TYPHA_K8SNAMESPACE = %q, want %q", e.Value, ns)
	}

	kc := mustFind[*appsv1.Deployment](t, objs, "Deployment", ns, "calico-kube-controllers")
	if d := cmp.Diff(map[string]string{"k8s-app": "calico-kube-controllers"}, kc.Spec.Selector.MatchLabels); d != "" {
		t.Errorf("kube-controllers selector (-want +got):\n%s", d)
	}
	if l := kc.Spec.Template.Labels; l["app.kubernetes.io/name"] != "calico-kube-controllers" {
		t.Errorf("kube-controllers template labels %v", l)
	}

	svc := mustFind[*corev1.Service](t, objs, "Service", ns, "calico-typha")
	if d := cmp.Diff(map[string]string{"k8s-app": "calico-typha"}, svc.Spec.Selector); d != "" {
		t.Errorf("typha Service selector (-want +got):\n%s", d)
	}
	pdb := mustFind[*policyv1.PodDisruptionBudget](t, objs, "PodDisruptionBudget", ns, "calico-typha")
	if d := cmp.Diff(map[string]string{"k8s-app": "calico-typha"}, pdb.Spec.Selector.MatchLabels); d != "" {
		t.Errorf("typha PDB selector (-want +got):\n%s", d)
	}

	// calico-node's configuration is cni-config, the CNI network configuration under key config.
	cm := mustFind[*corev1.ConfigMap](t, objs, "ConfigMap", ns, "cni-config")
	if _, ok := cm.Data["config"]; !ok {
		t.Errorf("cni-config keys %v lack config", slices.Sorted(maps.Keys(cm.Data)))
	}
	if _, ok := cm.Data["cni_network_config"]; ok {
		t.Error("cni-config carries cni_network_config")
	}
	if cm.Data["typha_service_name"] != "calico-typha" {
		t.Errorf("typha_service_name = %q", cm.Data["typha_service_name"])
	}
	if find(objs, "ConfigMap", ns, "calico-config") != nil {
		t.Error("calico-config is rendered in the operator layout")
	}
	install := podContainer(t, ds.Spec.Template.Spec, "install-cni")
	want := corev1.EnvVar{Name: "CNI_NETWORK_CONFIG", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: "cni-config"}, Key: "config",
	}}}
	if got, _ := envOf(install, "CNI_NETWORK_CONFIG"); !cmp.Equal(got, want) {
		t.Errorf("install-cni CNI_NETWORK_CONFIG (-want +got):\n%s", cmp.Diff(want, got))
	}
	// Every ConfigMap reference of calico-node's containers names cni-config.
	for _, c := range append(append([]corev1.Container{}, ds.Spec.Template.Spec.InitContainers...), ds.Spec.Template.Spec.Containers...) {
		for _, e := range c.Env {
			if r := e.ValueFrom; r != nil && r.ConfigMapKeyRef != nil && r.ConfigMapKeyRef.Name != "cni-config" {
				t.Errorf("%s %s reads ConfigMap %s", c.Name, e.Name, r.ConfigMapKeyRef.Name)
			}
		}
	}

	node := podContainer(t, ds.Spec.Template.Spec, "calico-node")
	if e, _ := envOf(node, "FELIX_TYPHAK8SNAMESPACE"); e.Value != ns {
		t.Errorf("FELIX_TYPHAK8SNAMESPACE = %q, want %q", e.Value, ns)
	}
	for _, name := range []string{"FELIX_TYPHACAFILE", "FELIX_TYPHACERTFILE", "FELIX_TYPHAKEYFILE", "FELIX_TYPHACN"} {
		if _, ok := envOf(node, name); ok {
			t.Errorf("%s is set without Typha TLS", name)
		}
	}

	// RBAC names the ServiceAccounts in calico-system; the CNI plugin's tokens are minted there.
	crb := mustFind[*rbacv1.ClusterRoleBinding](t, objs, "ClusterRoleBinding", "", "calico-node")
	wantSubjects := []rbacv1.Subject{
		{Kind: "ServiceAccount", Name: "calico-node", Namespace: ns},
		{Kind: "ServiceAccount", Name: "calico-typha", Namespace: ns},
	}
	if d := cmp.Diff(wantSubjects, crb.Subjects); d != "" {
		t.Errorf("calico-node binding subjects (-want +got):\n%s", d)
	}
	for _, sa := range []string{"calico-node", "calico-typha", "calico-kube-controllers", "calico-cni-plugin"} {
		mustFind[*corev1.ServiceAccount](t, objs, "ServiceAccount", ns, sa)
	}

	// The typha autoscaler scales calico-system/calico-typha.
	cpa := mustFind[*appsv1.Deployment](t, objs, "Deployment", ns, render.NameTyphaCPA)
	cmd := cpa.Spec.Template.Spec.Containers[0].Command
	if !slices.Contains(cmd, "--namespace=calico-system") || !slices.Contains(cmd, "--target=deployment/calico-typha") {
		t.Errorf("typha autoscaler command %v", cmd)
	}
	role := mustFind[*rbacv1.Role](t, objs, "Role", ns, render.NameTyphaCPARBAC)
	if got := role.Rules[1].ResourceNames; !cmp.Equal(got, []string{"calico-typha"}) {
		t.Errorf("typha autoscaler may scale %v", got)
	}
}

// TestLayoutWorkloads: Layout.Workload names the objects render builds, in either layout, so the
// readers of a running install (rollout, apply) find what was rendered.
func TestLayoutWorkloads(t *testing.T) {
	for _, l := range []layout.Layout{{}, layout.KubeSystem(), layout.TigeraOperator()} {
		o := scenarioOptions(t, scenarios[0])
		o.Layout = l
		objs := shootObjects(t, o)
		for _, c := range calicoversion.Components() {
			w := l.Workload(c)
			if find(objs, w.Kind, w.Namespace, w.Name) == nil {
				t.Errorf("layout %s: no %s %s/%s for %s", l.Namespace, w.Kind, w.Namespace, w.Name, c)
			}
		}
	}
	// The default layout is the one the catalogue's constants describe (calicoversion, used by rollout).
	for _, c := range calicoversion.Components() {
		if got, want := (layout.Layout{}).Workload(c), c.Workload(); got != want {
			t.Errorf("%s: default layout workload %+v, calicoversion's %+v", c, got, want)
		}
	}
	// And its names are render's.
	want := layout.Layout{
		Namespace: render.Namespace,
		Node:      layout.Workload{Name: render.NameCalicoNode, ServiceAccount: render.NameCalicoNode, Selector: layout.Label{Key: "k8s-app", Value: render.NameCalicoNode}},
		Typha:     layout.Workload{Name: render.NameTyphaDeployment, ServiceAccount: render.NameTypha, Selector: layout.Label{Key: "k8s-app", Value: render.NameTypha}},
		KubeControllers: layout.Workload{
			Name: render.NameKubeControllers, ServiceAccount: render.NameKubeControllers,
			Selector: layout.Label{Key: "k8s-app", Value: render.NameKubeControllers},
		},
		TyphaService: render.NameTypha, CNIPlugin: render.NameCNIPlugin,
		ConfigMap: render.NameCalicoConfig, CNIConfigKey: "cni_network_config",
		// The optional components keep the operator's names in kube-system (docs/layouts.md).
		Components: layout.OperatorComponents(),
	}
	if d := cmp.Diff(want, layout.KubeSystem()); d != "" {
		t.Errorf("KubeSystem differs from render's names (-render +layout):\n%s", d)
	}
}

// TestDefaultLayoutUnchanged: the zero Layout (every Gardener shoot, whose goldens pin it) and an
// explicit KubeSystem render the same bytes, for every scenario at every release, through the
// Encoder too (which encodes the explicit layout's constants per render).
func TestDefaultLayoutUnchanged(t *testing.T) {
	enc, err := pipeline.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range everyRelease {
		t.Run(sc.Name, func(t *testing.T) {
			zero := scenarioOptions(t, sc)
			explicit := zero
			explicit.Layout = layout.KubeSystem()
			a, err := enc.Shoot(&zero, false)
			if err != nil {
				t.Fatal(err)
			}
			b, err := enc.Shoot(&explicit, false)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.JSON(), b.JSON()) {
				t.Errorf("explicit KubeSystem layout differs from the zero layout:\n%s", shortDiff(cmp.Diff(string(a.JSON()), string(b.JSON()))))
			}
		})
	}
}

// TestOperatorLayoutDeterministic: the operator layout with Typha TLS renders the same bytes twice,
// and the Encoder's manifest equals encoding every object.
func TestOperatorLayoutDeterministic(t *testing.T) {
	enc, err := pipeline.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	o := operatorOptions(t, true)
	first, err := enc.Shoot(&o, false)
	if err != nil {
		t.Fatal(err)
	}
	second, err := enc.Shoot(&o, false)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.JSON(), second.JSON()) {
		t.Error("two renders differ")
	}
	all, err := manifest.Build(nil, shootObjects(t, o))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(all.JSON()), string(first.JSON())); d != "" {
		t.Errorf("Encoder differs from encoding every object (-all +encoder):\n%s", shortDiff(d))
	}
}

// TestTyphaTLS: with Typha TLS, Felix and Typha get Calico's TLS parameters pointing at files of
// read-only mounts of the named ConfigMap and Secrets, with the operator's paths and volume names.
func TestTyphaTLS(t *testing.T) {
	const ns = "calico-system"
	objs := shootObjects(t, operatorOptions(t, true))
	ds := mustFind[*appsv1.DaemonSet](t, objs, "DaemonSet", ns, "calico-node")
	typha := mustFind[*appsv1.Deployment](t, objs, "Deployment", ns, "calico-typha")

	tlsEnv := func(c corev1.Container, prefix string) map[string]string {
		out := map[string]string{}
		for _, e := range c.Env {
			if len(e.Name) > len(prefix) && e.Name[:len(prefix)] == prefix {
				out[e.Name] = e.Value
			}
		}
		return out
	}
	node := podContainer(t, ds.Spec.Template.Spec, "calico-node")
	wantNode := map[string]string{
		"FELIX_TYPHAK8SNAMESPACE": "calico-system",
		"FELIX_TYPHACAFILE":       "/etc/pki/tls/certs/tigera-ca-bundle.crt",
		"FELIX_TYPHACERTFILE":     "/node-certs/tls.crt",
		"FELIX_TYPHAKEYFILE":      "/node-certs/tls.key",
		"FELIX_TYPHACN":           "typha-server",
		// From the ConfigMap (no literal value).
		"FELIX_TYPHAK8SSERVICENAME": "",
	}
	if d := cmp.Diff(wantNode, tlsEnv(node, "FELIX_TYPHA")); d != "" {
		t.Errorf("calico-node's Typha env (-want +got):\n%s", d)
	}
	server := podContainer(t, typha.Spec.Template.Spec, "calico-typha")
	wantTypha := map[string]string{
		"TYPHA_CAFILE":         "/etc/pki/tls/certs/tigera-ca-bundle.crt",
		"TYPHA_SERVERCERTFILE": "/typha-certs/tls.crt",
		"TYPHA_SERVERKEYFILE":  "/typha-certs/tls.key",
		"TYPHA_CLIENTCN":       "typha-client",
	}
	got := tlsEnv(server, "TYPHA_")
	for k := range got {
		if _, ok := wantTypha[k]; !ok {
			delete(got, k) // typha's other settings
		}
	}
	if d := cmp.Diff(wantTypha, got); d != "" {
		t.Errorf("typha's TLS env (-want +got):\n%s", d)
	}

	caVolume := corev1.Volume{Name: "tigera-ca-bundle", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: "tigera-ca-bundle"},
	}}}
	secretVolume := func(name string) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name}}}
	}
	caMount := corev1.VolumeMount{Name: "tigera-ca-bundle", MountPath: "/etc/pki/tls/certs", ReadOnly: true}
	for _, side := range []struct {
		name    string
		spec    corev1.PodSpec
		c       corev1.Container
		keyPair corev1.Volume
		mount   corev1.VolumeMount
	}{
		{"calico-node", ds.Spec.Template.Spec, node, secretVolume("node-certs"), corev1.VolumeMount{Name: "node-certs", MountPath: "/node-certs", ReadOnly: true}},
		{"typha", typha.Spec.Template.Spec, server, secretVolume("typha-certs"), corev1.VolumeMount{Name: "typha-certs", MountPath: "/typha-certs", ReadOnly: true}},
	} {
		for _, v := range []corev1.Volume{caVolume, side.keyPair} {
			if !containsVolume(side.spec.Volumes, v) {
				t.Errorf("%s lacks volume %+v", side.name, v)
			}
		}
		for _, m := range []corev1.VolumeMount{caMount, side.mount} {
			if !containsMount(side.c.VolumeMounts, m) {
				t.Errorf("%s lacks mount %+v", side.name, m)
			}
		}
		// Each mount names a volume of the pod.
		for _, m := range side.c.VolumeMounts {
			if !hasVolume(side.spec.Volumes, m.Name) {
				t.Errorf("%s mounts %s, which is no volume", side.name, m.Name)
			}
		}
	}

	// URI SANs, when a TLS set-up wants them, are Calico's TyphaURISAN and ClientURISAN.
	o := operatorOptions(t, true)
	o.TyphaTLS.ServerURISAN, o.TyphaTLS.ClientURISAN = "spiffe://cluster/typha", "spiffe://cluster/node"
	objs = shootObjects(t, o)
	node = podContainer(t, mustFind[*appsv1.DaemonSet](t, objs, "DaemonSet", ns, "calico-node").Spec.Template.Spec, "calico-node")
	server = podContainer(t, mustFind[*appsv1.Deployment](t, objs, "Deployment", ns, "calico-typha").Spec.Template.Spec, "calico-typha")
	if e, _ := envOf(node, "FELIX_TYPHAURISAN"); e.Value != "spiffe://cluster/typha" {
		t.Errorf("FELIX_TYPHAURISAN = %q", e.Value)
	}
	if e, _ := envOf(server, "TYPHA_CLIENTURISAN"); e.Value != "spiffe://cluster/node" {
		t.Errorf("TYPHA_CLIENTURISAN = %q", e.Value)
	}
}

// TestTyphaTLSDefaultLayout: Typha TLS works in Gardener's layout too, and there sets no namespace
// (Felix's and Typha's default is kube-system).
func TestTyphaTLSDefaultLayout(t *testing.T) {
	o := scenarioOptions(t, scenarios[0])
	tt := layout.TigeraOperatorTyphaTLS()
	o.TyphaTLS = &tt
	objs := shootObjects(t, o)
	node := podContainer(t, mustFind[*appsv1.DaemonSet](t, objs, "DaemonSet", "kube-system", "calico-node").Spec.Template.Spec, "calico-node")
	typha := podContainer(t, mustFind[*appsv1.Deployment](t, objs, "Deployment", "kube-system", "calico-typha-deploy").Spec.Template.Spec, "calico-typha")
	if _, ok := envOf(node, "FELIX_TYPHAK8SNAMESPACE"); ok {
		t.Error("FELIX_TYPHAK8SNAMESPACE set in kube-system")
	}
	if _, ok := envOf(typha, "TYPHA_K8SNAMESPACE"); ok {
		t.Error("TYPHA_K8SNAMESPACE set in kube-system")
	}
	if e, _ := envOf(node, "FELIX_TYPHACN"); e.Value != "typha-server" {
		t.Errorf("FELIX_TYPHACN = %q", e.Value)
	}
}

// TestLayoutAndTLSErrors: Options that values.Resolve never produces are errors, not broken manifests.
func TestLayoutAndTLSErrors(t *testing.T) {
	base := scenarioOptions(t, scenarios[0])
	partial := layout.TigeraOperator()
	partial.ConfigMap, partial.Typha.Selector.Value = "", ""
	badTLS := layout.TigeraOperatorTyphaTLS()
	badTLS.NodeMountPath, badTLS.ServerCN = "node-certs", ""
	for _, tc := range []struct {
		name string
		edit func(o *values.Options)
		want string
	}{
		{"partial layout", func(o *values.Options) { o.Layout = partial }, "rendering shoot objects: layout: no calico-node's ConfigMap, no the key or value of selector k8s-app="},
		{"bad TLS", func(o *values.Options) { o.TyphaTLS = &badTLS },
			"rendering shoot objects: typha TLS: calico-node's key pair mount path \"node-certs\" is not an absolute path\ntypha TLS: neither a server CN nor a server URI SAN for Felix to check"},
		{"TLS without typha", func(o *values.Options) { tt := layout.TigeraOperatorTyphaTLS(); o.TyphaTLS, o.Typha = &tt, false }, "rendering shoot objects: typha TLS is set but typha is off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := base
			tc.edit(&o)
			_, _, err := render.ShootParts(&o)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

func containsVolume(vs []corev1.Volume, v corev1.Volume) bool {
	for _, x := range vs {
		if cmp.Equal(x, v) {
			return true
		}
	}
	return false
}

func hasVolume(vs []corev1.Volume, name string) bool {
	for _, x := range vs {
		if x.Name == name {
			return true
		}
	}
	return false
}

func containsMount(ms []corev1.VolumeMount, m corev1.VolumeMount) bool {
	for _, x := range ms {
		if cmp.Equal(x, m) {
			return true
		}
	}
	return false
}
