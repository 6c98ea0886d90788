package render_test

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// withComponents is the default scenario in layout l with every optional component on.
func withComponents(t *testing.T, l layout.Layout) values.Options {
	t.Helper()
	return rendertest.WithComponents(scenarioOptions(t, scenarios[0]), l)
}

// The names, labels and selectors the tigera operator v1.40 gives the optional components' objects
// (docs/layouts.md), as literals.
var operatorFacts = []struct {
	kind, ns, name string
	labels         map[string]string
}{
	{"ServiceAccount", "calico-system", "calico-apiserver", nil},
	{"Deployment", "calico-system", "calico-apiserver", map[string]string{"apiserver": "true", "k8s-app": "calico-apiserver", "app.kubernetes.io/name": "calico-apiserver"}},
	{"Service", "calico-system", "calico-api", map[string]string{"k8s-app": "calico-api"}},
	{"PodDisruptionBudget", "calico-system", "calico-apiserver", nil},
	{"NetworkPolicy", "calico-system", "allow-apiserver", nil},
	{"APIService", "", "v3.projectcalico.org", nil},
	{"ClusterRole", "", "calico-crds", nil},
	{"ClusterRole", "", "calico-extension-apiserver-auth-access", nil},
	{"ClusterRole", "", "calico-webhook-reader", nil},
	{"ClusterRole", "", "calico-tier-getter", nil},
	{"ClusterRole", "", "calico-tiered-policy-passthrough", nil},
	{"ClusterRoleBinding", "", "calico-apiserver-access-calico-crds", nil},
	{"ClusterRoleBinding", "", "calico-apiserver-delegate-auth", nil},
	{"ClusterRoleBinding", "", "calico-apiserver-webhook-reader", nil},
	{"ClusterRoleBinding", "", "calico-extension-apiserver-auth-access", nil},
	{"ClusterRoleBinding", "", "calico-tier-getter", nil},
	{"ClusterRoleBinding", "", "calico-tiered-policy-passthrough", nil},
	{"RoleBinding", "kube-system", "calico-apiserver-auth-reader", nil},
	{"ServiceAccount", "calico-system", "goldmane", nil},
	{"Deployment", "calico-system", "goldmane", map[string]string{"k8s-app": "goldmane", "app.kubernetes.io/name": "goldmane"}},
	{"Service", "calico-system", "goldmane", nil},
	{"ConfigMap", "calico-system", "goldmane", nil},
	{"NetworkPolicy", "calico-system", "goldmane", nil},
	{"ServiceAccount", "calico-system", "whisker", nil},
	{"Deployment", "calico-system", "whisker", map[string]string{"k8s-app": "whisker", "app.kubernetes.io/name": "whisker"}},
	{"Service", "calico-system", "whisker", nil},
	{"ConfigMap", "calico-system", "whisker-nginx-config", nil},
	{"NetworkPolicy", "calico-system", "whisker", nil},
	{"ServiceAccount", "calico-system", "csi-node-driver", nil},
	{"DaemonSet", "calico-system", "csi-node-driver", nil},
	{"CSIDriver", "", "csi.tigera.io", nil},
}

// optionalNames are the names only the optional components render.
var optionalNames = map[string]bool{
	"calico-apiserver": true, "calico-api": true, "allow-apiserver": true, "v3.projectcalico.org": true,
	"calico-crds": true, "calico-extension-apiserver-auth-access": true, "calico-webhook-reader": true,
	"calico-tiered-policy-passthrough": true, "calico-apiserver-access-calico-crds": true, "calico-apiserver-delegate-auth": true,
	"calico-apiserver-webhook-reader": true, "calico-apiserver-auth-reader": true, "goldmane": true, "whisker": true,
	"whisker-nginx-config": true, "csi-node-driver": true, "csi.tigera.io": true,
}

// TestOptionalComponentsOperatorFacts: in the operator's layout every object the operator creates
// for the four components is rendered once, with its labels; the immutable selectors and what
// selects the pods are the operator's.
func TestOptionalComponentsOperatorFacts(t *testing.T) {
	o := withComponents(t, layout.TigeraOperator())
	objs := shootObjects(t, o)
	for _, f := range operatorFacts {
		n := 0
		for _, obj := range objs {
			if obj.GetObjectKind().GroupVersionKind().Kind == f.kind && obj.GetNamespace() == f.ns && obj.GetName() == f.name {
				n++
				if f.labels != nil {
					if d := cmp.Diff(f.labels, obj.GetLabels()); d != "" {
						t.Errorf("%s %s/%s labels (-want +got):\n%s", f.kind, f.ns, f.name, d)
					}
				}
			}
		}
		if n != 1 {
			t.Errorf("%s %s/%s rendered %d times, want once", f.kind, f.ns, f.name, n)
		}
	}
	sel := func(t *testing.T, kind, name string, want map[string]string) {
		t.Helper()
		switch w := find(objs, kind, "calico-system", name).(type) {
		case *appsv1.Deployment:
			if d := cmp.Diff(want, w.Spec.Selector.MatchLabels); d != "" {
				t.Errorf("%s selector (-want +got):\n%s", name, d)
			}
			for k, v := range want {
				if w.Spec.Template.Labels[k] != v {
					t.Errorf("%s pods lack their selector label %s=%s", name, k, v)
				}
			}
		case *appsv1.DaemonSet:
			if d := cmp.Diff(want, w.Spec.Selector.MatchLabels); d != "" {
				t.Errorf("%s selector (-want +got):\n%s", name, d)
			}
			wantPod := map[string]string{"k8s-app": "csi-node-driver", "app.kubernetes.io/name": "csi-node-driver", "name": "csi-node-driver"}
			if d := cmp.Diff(wantPod, w.Spec.Template.Labels); d != "" {
				t.Errorf("%s pod labels (-want +got):\n%s", name, d)
			}
			if len(w.Labels) != 0 {
				t.Errorf("%s has metadata labels %v; the operator's has none", name, w.Labels)
			}
		default:
			t.Fatalf("no %s %s", kind, name)
		}
	}
	sel(t, "Deployment", "calico-apiserver", map[string]string{"apiserver": "true"})
	sel(t, "Deployment", "goldmane", map[string]string{"k8s-app": "goldmane"})
	sel(t, "Deployment", "whisker", map[string]string{"k8s-app": "whisker"})
	sel(t, "DaemonSet", "csi-node-driver", map[string]string{"k8s-app": "csi-node-driver"})

	api := mustFind[*corev1.Service](t, objs, "Service", "calico-system", "calico-api")
	if d := cmp.Diff(map[string]string{"apiserver": "true"}, api.Spec.Selector); d != "" || api.Spec.Ports[0].Port != 443 || api.Spec.Ports[0].TargetPort.IntVal != 5443 {
		t.Errorf("calico-api: selector %v, ports %+v", api.Spec.Selector, api.Spec.Ports)
	}
	for name, port := range map[string]int32{"goldmane": 7443, "whisker": 8081} {
		s := mustFind[*corev1.Service](t, objs, "Service", "calico-system", name)
		if s.Spec.Selector["k8s-app"] != name || len(s.Spec.Selector) != 1 || s.Spec.Ports[0].Port != port || len(s.Labels) != 0 {
			t.Errorf("Service %s: labels %v, selector %v, ports %+v", name, s.Labels, s.Spec.Selector, s.Spec.Ports)
		}
	}
	pdb := mustFind[*policyv1.PodDisruptionBudget](t, objs, "PodDisruptionBudget", "calico-system", "calico-apiserver")
	if pdb.Spec.MaxUnavailable.IntVal != 1 || pdb.Spec.Selector.MatchLabels["apiserver"] != "true" {
		t.Errorf("PodDisruptionBudget calico-apiserver: %+v", pdb.Spec)
	}
	np := map[string]string{"allow-apiserver": "apiserver", "goldmane": "app.kubernetes.io/name", "whisker": "app.kubernetes.io/name"}
	for name, key := range np {
		p := mustFind[*networkingv1.NetworkPolicy](t, objs, "NetworkPolicy", "calico-system", name)
		if _, ok := p.Spec.PodSelector.MatchLabels[key]; !ok {
			t.Errorf("NetworkPolicy %s selects %v, want by %s", name, p.Spec.PodSelector.MatchLabels, key)
		}
	}
	wnp := mustFind[*networkingv1.NetworkPolicy](t, objs, "NetworkPolicy", "calico-system", "whisker")
	if len(wnp.Spec.Ingress) != 0 || len(wnp.Spec.Egress) != 2 || wnp.Spec.Egress[0].Ports[0].Port.IntVal != 7443 {
		t.Errorf("NetworkPolicy whisker: %+v", wnp.Spec)
	}
	drv := mustFind[*storagev1.CSIDriver](t, objs, "CSIDriver", "", "csi.tigera.io")
	if !*drv.Spec.AttachRequired || !*drv.Spec.PodInfoOnMount || drv.Spec.VolumeLifecycleModes[0] != storagev1.VolumeLifecycleEphemeral ||
		*drv.Spec.FSGroupPolicy != storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy {
		t.Errorf("CSIDriver: %+v", drv.Spec)
	}
	as := mustFind[*unstructured.Unstructured](t, objs, "APIService", "", "v3.projectcalico.org")
	svc, _, _ := unstructured.NestedMap(as.Object, "spec", "service")
	ca, _, _ := unstructured.NestedString(as.Object, "spec", "caBundle")
	if svc["name"] != "calico-api" || svc["namespace"] != "calico-system" || svc["port"] != int64(443) || ca != base64.StdEncoding.EncodeToString([]byte(rendertest.CABundle)) {
		t.Errorf("APIService: service %v, caBundle %q", svc, ca)
	}
	if skip, found, _ := unstructured.NestedBool(as.Object, "spec", "insecureSkipTLSVerify"); found && skip {
		t.Error("APIService skips TLS verification")
	}
	wh := mustFind[*appsv1.Deployment](t, objs, "Deployment", "calico-system", "whisker")
	if len(wh.Spec.Template.Spec.Containers) != 2 || wh.Spec.Template.Spec.Containers[0].Name != "whisker" || wh.Spec.Template.Spec.Containers[1].Name != "whisker-backend" {
		t.Errorf("whisker containers: %+v", wh.Spec.Template.Spec.Containers)
	}
	if e, _ := envOf(wh.Spec.Template.Spec.Containers[1], "GOLDMANE_HOST"); e.Value != "goldmane.calico-system.svc:7443" {
		t.Errorf("GOLDMANE_HOST = %q", e.Value)
	}
}

// TestOptionalComponentsRBAC: the bindings of calico-apiserver's ServiceAccount and the two bindings
// for other subjects are the operator's.
func TestOptionalComponentsRBAC(t *testing.T) {
	objs := shootObjects(t, withComponents(t, layout.TigeraOperator()))
	sa := rbacv1.Subject{Kind: "ServiceAccount", Name: "calico-apiserver", Namespace: "calico-system"}
	for name, role := range map[string]string{
		"calico-apiserver-access-calico-crds":    "calico-crds",
		"calico-apiserver-delegate-auth":         "system:auth-delegator",
		"calico-apiserver-webhook-reader":        "calico-webhook-reader",
		"calico-extension-apiserver-auth-access": "calico-extension-apiserver-auth-access",
	} {
		b := mustFind[*rbacv1.ClusterRoleBinding](t, objs, "ClusterRoleBinding", "", name)
		if b.RoleRef.Name != role || b.RoleRef.Kind != "ClusterRole" || len(b.Subjects) != 1 || b.Subjects[0] != sa {
			t.Errorf("ClusterRoleBinding %s: roleRef %+v, subjects %+v", name, b.RoleRef, b.Subjects)
		}
	}
	rb := mustFind[*rbacv1.RoleBinding](t, objs, "RoleBinding", "kube-system", "calico-apiserver-auth-reader")
	if rb.RoleRef != (rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "extension-apiserver-authentication-reader"}) || rb.Subjects[0] != sa {
		t.Errorf("RoleBinding calico-apiserver-auth-reader: %+v %+v", rb.RoleRef, rb.Subjects)
	}
	pt := mustFind[*rbacv1.ClusterRoleBinding](t, objs, "ClusterRoleBinding", "", "calico-tiered-policy-passthrough")
	if pt.Subjects[0].Kind != "Group" || pt.Subjects[0].Name != "system:authenticated" {
		t.Errorf("passthrough subjects: %+v", pt.Subjects)
	}
	// Neither goldmane nor whisker nor the CSI driver asks the API server for anything.
	for _, o := range objs {
		switch b := o.(type) {
		case *rbacv1.RoleBinding:
			for _, s := range b.Subjects {
				if s.Name == "goldmane" || s.Name == "whisker" || s.Name == "csi-node-driver" {
					t.Errorf("RoleBinding %s binds %s", b.Name, s.Name)
				}
			}
		case *rbacv1.ClusterRoleBinding:
			for _, s := range b.Subjects {
				if s.Name == "goldmane" || s.Name == "whisker" || s.Name == "csi-node-driver" {
					t.Errorf("ClusterRoleBinding %s binds %s", b.Name, s.Name)
				}
			}
		}
	}
}

// TestGoldmaneInCalicoNode: with goldmane, Felix gets its address, the flush interval and the host
// alias; without the IP no alias; without goldmane none of them.
func TestGoldmaneInCalicoNode(t *testing.T) {
	o := withComponents(t, layout.TigeraOperator())
	ds := mustFind[*appsv1.DaemonSet](t, shootObjects(t, o), "DaemonSet", "calico-system", "calico-node")
	c := podContainer(t, ds.Spec.Template.Spec, "calico-node")
	for name, want := range map[string]string{"FELIX_FLOWLOGSGOLDMANESERVER": "goldmane.calico-system.svc:7443", "FELIX_FLOWLOGSFLUSHINTERVAL": "15"} {
		if e, ok := envOf(c, name); !ok || e.Value != want {
			t.Errorf("%s = %q, want %q", name, e.Value, want)
		}
	}
	want := []corev1.HostAlias{{IP: "10.0.0.85", Hostnames: []string{"goldmane.calico-system.svc"}}}
	if d := cmp.Diff(want, ds.Spec.Template.Spec.HostAliases); d != "" {
		t.Errorf("hostAliases (-want +got):\n%s", d)
	}
	o.Components.GoldmaneServiceIP = ""
	ds = mustFind[*appsv1.DaemonSet](t, shootObjects(t, o), "DaemonSet", "calico-system", "calico-node")
	if ds.Spec.Template.Spec.HostAliases != nil {
		t.Errorf("hostAliases without an IP: %+v", ds.Spec.Template.Spec.HostAliases)
	}
	o.Components = values.Components{}
	ds = mustFind[*appsv1.DaemonSet](t, shootObjects(t, o), "DaemonSet", "calico-system", "calico-node")
	c = podContainer(t, ds.Spec.Template.Spec, "calico-node")
	if _, ok := envOf(c, "FELIX_FLOWLOGSGOLDMANESERVER"); ok || ds.Spec.Template.Spec.HostAliases != nil {
		t.Error("calico-node points at goldmane without goldmane")
	}
}

// TestOptionalComponentsOff: the zero Components render none of the optional objects, in any layout
// (every Gardener shoot: the goldens stay byte-identical), and each component renders only its own.
func TestOptionalComponentsOff(t *testing.T) {
	for _, sc := range scenarios {
		for _, obj := range shootObjects(t, scenarioOptions(t, sc)) {
			kind := obj.GetObjectKind().GroupVersionKind().Kind
			if optionalNames[obj.GetName()] || kind == "APIService" || kind == "CSIDriver" {
				t.Errorf("scenario %s renders %s %s without optional components", sc.Name, kind, obj.GetName())
			}
		}
	}
	base := withComponents(t, layout.TigeraOperator())
	for _, tc := range []struct {
		name string
		on   values.Components
		want []string // Deployments and DaemonSets besides the core ones
	}{
		{"apiserver", values.Components{APIServer: true, APIServiceCABundle: rendertest.CABundle}, []string{"calico-apiserver"}},
		{"goldmane", values.Components{Goldmane: true}, []string{"goldmane"}},
		{"goldmane and whisker", values.Components{Goldmane: true, Whisker: true}, []string{"goldmane", "whisker"}},
		{"csi", values.Components{CSIDriver: true}, []string{"csi-node-driver"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := base
			o.Components = tc.on
			var got []string
			for _, obj := range shootObjects(t, o) {
				switch obj.(type) {
				case *appsv1.Deployment, *appsv1.DaemonSet:
					if optionalNames[obj.GetName()] {
						got = append(got, obj.GetName())
					}
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("workloads (-want +got):\n%s", d)
			}
		})
	}
}

// TestOptionalComponentsRefused: what the options cannot render is an error naming it.
func TestOptionalComponentsRefused(t *testing.T) {
	base := withComponents(t, layout.TigeraOperator())
	for _, tc := range []struct {
		name string
		edit func(o *values.Options)
		want string
	}{
		{"whisker without goldmane", func(o *values.Options) { o.Components.Goldmane = false }, "whisker is on without goldmane"},
		{"APIService without a CA bundle", func(o *values.Options) { o.Components.APIServiceCABundle = "" }, "calico-apiserver is on without a CA bundle"},
		{"goldmane without Typha TLS", func(o *values.Options) { o.TyphaTLS = nil }, "goldmane is on without Typha TLS"},
		{"no goldmane image", func(o *values.Options) { o.Images.CalicoGoldmane = "" }, "the goldmane image is not set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := base
			tc.edit(&o)
			_, _, err := render.ShootParts(&o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
}

// TestOptionalComponentsChecksums: a Secret's or ConfigMap's digest rolls only the pods that mount it.
func TestOptionalComponentsChecksums(t *testing.T) {
	o := withComponents(t, layout.TigeraOperator())
	o.Components.Checksums = map[string]string{"goldmane-key-pair": "g", "whisker-ca-bundle": "w", "calico-apiserver-certs": "a", "unmounted": "x"}
	objs := shootObjects(t, o)
	for name, want := range map[string]map[string]string{
		"calico-apiserver": {"checksum/calico-apiserver-certs": "a"},
		"goldmane":         {"checksum/goldmane-key-pair": "g"},
		"whisker":          {"checksum/whisker-ca-bundle": "w"},
	} {
		d := mustFind[*appsv1.Deployment](t, objs, "Deployment", "calico-system", name)
		if diff := cmp.Diff(want, d.Spec.Template.Annotations); diff != "" {
			t.Errorf("%s annotations (-want +got):\n%s", name, diff)
		}
	}
}

// TestOptionalComponentsSecurity: calico-apiserver, goldmane, whisker and whisker-backend run as
// 10001 without privileges; only the CSI driver's containers are privileged.
func TestOptionalComponentsSecurity(t *testing.T) {
	objs := shootObjects(t, withComponents(t, layout.TigeraOperator()))
	for _, name := range []string{"calico-apiserver", "goldmane", "whisker"} {
		d := mustFind[*appsv1.Deployment](t, objs, "Deployment", "calico-system", name)
		for _, c := range d.Spec.Template.Spec.Containers {
			sc := c.SecurityContext
			if sc == nil || *sc.RunAsUser != 10001 || *sc.RunAsGroup != 10001 || !*sc.RunAsNonRoot || *sc.Privileged || *sc.AllowPrivilegeEscalation {
				t.Errorf("%s/%s securityContext %+v", name, c.Name, sc)
			}
		}
	}
	ds := mustFind[*appsv1.DaemonSet](t, objs, "DaemonSet", "calico-system", "csi-node-driver")
	for _, c := range ds.Spec.Template.Spec.Containers {
		if !*c.SecurityContext.Privileged {
			t.Errorf("csi-node-driver/%s is not privileged", c.Name)
		}
	}
}

// TestOptionalComponentsKubeSystem: in the kube-system layout the objects keep their names and move
// to kube-system; calico-node points at goldmane.kube-system.svc.
func TestOptionalComponentsKubeSystem(t *testing.T) {
	objs := shootObjects(t, withComponents(t, layout.KubeSystem()))
	for _, f := range operatorFacts {
		ns := f.ns
		if ns == "calico-system" {
			ns = "kube-system"
		}
		if find(objs, f.kind, ns, f.name) == nil {
			t.Errorf("no %s %s/%s", f.kind, ns, f.name)
		}
	}
	ds := mustFind[*appsv1.DaemonSet](t, objs, "DaemonSet", "kube-system", "calico-node")
	if e, _ := envOf(podContainer(t, ds.Spec.Template.Spec, "calico-node"), "FELIX_FLOWLOGSGOLDMANESERVER"); e.Value != "goldmane.kube-system.svc:7443" {
		t.Errorf("FELIX_FLOWLOGSGOLDMANESERVER = %q", e.Value)
	}
}

// TestEveryReleaseRendersEveryComponent: every release the catalogue carries renders every optional
// component, each with its images of the release it runs, and the same bytes twice.
func TestEveryReleaseRendersEveryComponent(t *testing.T) {
	vector, err := imagevector.LoadVector(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range calicoversion.Default().Releases() {
		t.Run(r.Name(), func(t *testing.T) {
			d := calicoversion.Steady(r)
			imgs, err := vector.ImagesFor(imagevector.FindOptions{}, d)
			if err != nil {
				t.Fatal(err)
			}
			o := withComponents(t, layout.TigeraOperator())
			o.Calico, o.Images = d, imgs
			objs := shootObjects(t, o)
			for c, images := range map[calicoversion.Component]map[string]string{
				calicoversion.APIServer: {"calico-apiserver": calicoversion.ImageAPIServer},
				calicoversion.Goldmane:  {"goldmane": calicoversion.ImageGoldmane},
				calicoversion.Whisker:   {"whisker": calicoversion.ImageWhisker, "whisker-backend": calicoversion.ImageWhiskerBackend},
				calicoversion.CSIDriver: {"calico-csi": calicoversion.ImageCSI, "csi-node-driver-registrar": calicoversion.ImageNodeDriverRegistrar},
			} {
				w := o.Layout.Workload(c)
				var spec corev1.PodSpec
				switch obj := find(objs, w.Kind, w.Namespace, w.Name).(type) {
				case *appsv1.Deployment:
					spec = obj.Spec.Template.Spec
				case *appsv1.DaemonSet:
					spec = obj.Spec.Template.Spec
				default:
					t.Fatalf("%s: no %s %s/%s", c, w.Kind, w.Namespace, w.Name)
				}
				for container, image := range images {
					if got, want := podContainer(t, spec, container).Image, r.Image(image); got != want || !strings.HasSuffix(got, ":"+r.Name()) {
						t.Errorf("%s/%s runs %s, want %s", c, container, got, want)
					}
				}
			}
			if a, b := yamlOf(t, objs), yamlOf(t, shootObjects(t, o)); !bytes.Equal(a, b) {
				t.Error("two renders differ")
			}
		})
	}
}

// TestNoClientObjectTwice guards the render: with every optional component on, no object is
// rendered twice (the tier getter is calico-node's RBAC, not calico-apiserver's).
func TestNoClientObjectTwice(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range shootObjects(t, withComponents(t, layout.TigeraOperator())) {
		k := o.GetObjectKind().GroupVersionKind().Kind + "/" + o.GetNamespace() + "/" + o.GetName()
		if seen[k] {
			t.Errorf("%s rendered twice", k)
		}
		seen[k] = true
	}
}
