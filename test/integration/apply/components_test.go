package apply

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/calicotls"
	"github.com/calico-pilot/calico-pilot/internal/calicotls/calicotlstest"
	"github.com/calico-pilot/calico-pilot/internal/standalone"
	"github.com/calico-pilot/calico-pilot/internal/testcheck"
)

// allWorkloads are the seven workloads of the tigera operator's default install.
var allWorkloads = []struct{ kind, name string }{
	{"DaemonSet", "calico-node"}, {"Deployment", "calico-typha"}, {"Deployment", "calico-kube-controllers"},
	{"Deployment", "calico-apiserver"}, {"Deployment", "goldmane"}, {"Deployment", "whisker"}, {"DaemonSet", "csi-node-driver"},
}

// podSpecOf reads a calico-system workload's pod spec and generation.
func podSpecOf(t *testing.T, cl *cluster, kind, name string) (corev1.PodSpec, client.Object) {
	t.Helper()
	key := client.ObjectKey{Namespace: "calico-system", Name: name}
	if kind == "DaemonSet" {
		ds := &appsv1.DaemonSet{}
		if err := cl.c.Get(context.Background(), key, ds); err != nil {
			t.Fatalf("%s %s: %v", kind, name, err)
		}
		return ds.Spec.Template.Spec, ds
	}
	d := &appsv1.Deployment{}
	if err := cl.c.Get(context.Background(), key, d); err != nil {
		t.Fatalf("%s %s: %v", kind, name, err)
	}
	return d.Spec.Template.Spec, d
}

// calicoImagesAt says which of the seven workloads run a Calico image of another release than want.
func calicoImagesAt(t *testing.T, cl *cluster, want string) []string {
	t.Helper()
	var off []string
	for _, w := range allWorkloads {
		spec, _ := podSpecOf(t, cl, w.kind, w.name)
		for _, c := range append(spec.InitContainers, spec.Containers...) {
			if strings.Contains(c.Image, "/calico/") && !strings.HasSuffix(c.Image, ":"+want) {
				off = append(off, w.name+" "+c.Name+" "+c.Image)
			}
		}
	}
	return off
}

func managedByCalicoPilot(o client.Object) bool {
	for _, m := range o.GetManagedFields() {
		if m.Manager == standalone.FieldManager {
			return true
		}
	}
	return false
}

// TestTakeOverRunsEveryComponent: a takeover of the operator's default install manages all seven
// workloads in place (UIDs kept, calico-pilot's fields, no ownerReference to the operator's
// resources); calico-node keeps exporting flows to Goldmane (its env and the hostAliases entry to
// goldmane's Service); the APIService's caBundle trusts calico-apiserver's certificate; a move up to
// v3.32 and back moves every workload, each step ending with every workload at one release.
func TestTakeOverRunsEveryComponent(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	op := cl.operatorInstall(operatorOptions{})
	ctx := context.Background()
	file := exampleFile(t)

	code, out, errOut := cl.apply(ctx, file, "--adopt", "--dry-run")
	if code != 0 || !testcheck.Contains(t, "dry run", out, "components.apiServer.enabled: true (kept: it runs (the tigera operator's))", "components.goldmane.enabled: true (kept",
		"components.whisker.enabled: true (kept", "components.csiDriver.enabled: true (kept") || strings.Contains(out, "managed by nobody") {
		t.Fatalf("dry run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut = cl.apply(ctx, file, "--adopt")
	if code != 0 || !strings.Contains(out, "applied: Calico v3.31.7 runs on every component") {
		t.Fatalf("apply --adopt: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if err := op.uidsKept(t, cl); err != nil {
		t.Error(err)
	}
	for _, w := range allWorkloads {
		_, obj := podSpecOf(t, cl, w.kind, w.name)
		if !managedByCalicoPilot(obj) {
			t.Errorf("%s %s is not calico-pilot's", w.kind, w.name)
		}
		for _, ref := range obj.GetOwnerReferences() {
			if strings.HasPrefix(ref.APIVersion, "operator.tigera.io/") {
				t.Errorf("%s %s is still owned by %s %s", w.kind, w.name, ref.Kind, ref.Name)
			}
		}
	}
	var svc corev1.Service
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "calico-system", Name: "goldmane"}, &svc); err != nil {
		t.Fatal(err)
	}
	node, _ := podSpecOf(t, cl, "DaemonSet", "calico-node")
	if !hasHostAlias(node, svc.Spec.ClusterIP, "goldmane.calico-system.svc") {
		t.Errorf("calico-node's hostAliases %v lack goldmane.calico-system.svc -> %s", node.HostAliases, svc.Spec.ClusterIP)
	}
	for _, c := range node.Containers {
		if c.Name == "calico-node" && envValue(c.Env, "FELIX_FLOWLOGSGOLDMANESERVER") != "goldmane.calico-system.svc:7443" {
			t.Errorf("calico-node's FELIX_FLOWLOGSGOLDMANESERVER is %q", envValue(c.Env, "FELIX_FLOWLOGSGOLDMANESERVER"))
		}
	}
	apiServiceTrustsBackend(t, cl)

	for _, to := range []string{"v3.32.1", "v3.31.7"} {
		code, out, errOut = cl.apply(ctx, file, "--calico-version", to)
		if code != 0 || !strings.Contains(out, "applied: Calico "+to+" runs on every component") {
			t.Fatalf("apply --calico-version %s: exit %d\nstdout:\n%s\nstderr:\n%s", to, code, out, errOut)
		}
		if off := calicoImagesAt(t, cl, to); len(off) > 0 {
			t.Errorf("after the move to %s, workloads run another release: %v", to, off)
		}
	}
	if err := op.uidsKept(t, cl); err != nil {
		t.Error(err)
	}
}

func hasHostAlias(spec corev1.PodSpec, ip, host string) bool {
	for _, a := range spec.HostAliases {
		for _, h := range a.Hostnames {
			if a.IP == ip && h == host {
				return true
			}
		}
	}
	return false
}

// apiServiceTrustsBackend: the APIService's caBundle verifies calico-apiserver's serving certificate.
func apiServiceTrustsBackend(t *testing.T, cl *cluster) {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apiregistration.k8s.io/v1")
	u.SetKind("APIService")
	if err := cl.c.Get(context.Background(), client.ObjectKey{Name: "v3.projectcalico.org"}, u); err != nil {
		t.Fatal(err)
	}
	b64, _, _ := unstructured.NestedString(u.Object, "spec", "caBundle")
	bundle, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	var sec corev1.Secret
	if err := cl.c.Get(context.Background(), client.ObjectKey{Namespace: "calico-system", Name: "calico-apiserver-certs"}, &sec); err != nil {
		t.Fatal(err)
	}
	if err := calicotls.Trusts(bundle, sec.Data[corev1.TLSCertKey], time.Now(), x509.ExtKeyUsageServerAuth); err != nil {
		t.Errorf("the APIService's caBundle does not trust calico-apiserver-certs: %v", err)
	}
}

// TestComponentCertificateRenewedNearExpiry: Goldmane's certificate 10 days before it expires is
// renewed with the adopted CA by the next apply; Goldmane's clients keep trusting it (the bundles
// they read hold the CA), only goldmane's pods roll, calico-apiserver's and whisker's do not.
func TestComponentCertificateRenewedNearExpiry(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	op := cl.operatorInstall(operatorOptions{})
	ctx := context.Background()
	file := exampleFile(t)
	if code, out, errOut := cl.apply(ctx, file, "--adopt"); code != 0 {
		t.Fatalf("apply --adopt: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// The certificate as the operator issued it 815 days ago, 10 days from its end.
	ca := op.CA
	hosts := []string{"goldmane", "goldmane.calico-system", "goldmane.calico-system.svc", "goldmane.calico-system.svc.cluster.local"}
	old := calicotlstest.OperatorLeaf(t, &ca, hosts, time.Now().Add(-815*24*time.Hour), 825*24*time.Hour)
	sec := &corev1.Secret{}
	sec.Namespace, sec.Name = "calico-system", "goldmane-key-pair"
	cl.edit(sec, "test", func() {
		sec.Data = map[string][]byte{corev1.TLSCertKey: old.CertPEM, corev1.TLSPrivateKeyKey: old.KeyPEM}
	})
	generations := map[string]int64{}
	for _, n := range []string{"goldmane", "calico-apiserver", "whisker"} {
		_, obj := podSpecOf(t, cl, "Deployment", n)
		generations[n] = obj.GetGeneration()
	}
	code, out, errOut := cl.apply(ctx, file)
	if code != 0 || !strings.Contains(out, "goldmane-key-pair") {
		t.Fatalf("apply with goldmane's certificate due: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if err := cl.c.Get(ctx, client.ObjectKeyFromObject(sec), sec); err != nil {
		t.Fatal(err)
	}
	cert, err := calicotls.ParseCertificate(sec.Data[corev1.TLSCertKey])
	if err != nil {
		t.Fatal(err)
	}
	if time.Until(cert.NotAfter) < 700*24*time.Hour {
		t.Errorf("goldmane-key-pair was not renewed: valid until %s", cert.NotAfter)
	}
	for _, bundle := range []string{"goldmane-ca-bundle", "whisker-ca-bundle", "tigera-ca-bundle"} {
		var cm corev1.ConfigMap
		if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "calico-system", Name: bundle}, &cm); err != nil {
			t.Fatal(err)
		}
		if err := calicotls.Trusts([]byte(cm.Data["tigera-ca-bundle.crt"]), sec.Data[corev1.TLSCertKey], time.Now()); err != nil {
			t.Errorf("%s does not trust the renewed goldmane certificate: %v", bundle, err)
		}
	}
	for n, was := range generations {
		_, obj := podSpecOf(t, cl, "Deployment", n)
		rolled := obj.GetGeneration() != was
		if rolled != (n == "goldmane") {
			t.Errorf("Deployment %s rolled %t by goldmane's renewal (generation %d, was %d)", n, rolled, obj.GetGeneration(), was)
		}
	}
	if code, out, errOut := cl.apply(ctx, file); code != 0 || !strings.Contains(out, "no changes, nothing was written") {
		t.Fatalf("the apply after the renewal: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestComponentTurnedOff: after a takeover, the file turns calico-apiserver off: apply deletes the
// APIService before the API server behind it (no APIService is left pointing at nothing), and what the
// owner wrote through projectcalico.org/v3 stays (the API server stores it in Calico's CRDs, here a
// GlobalNetworkSet written as the API server would, through crd.projectcalico.org/v1). A file that
// turns Whisker on without Goldmane is refused naming the field.
func TestComponentTurnedOff(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	cl.operatorInstall(operatorOptions{})
	ctx := context.Background()
	file := exampleFile(t)
	if code, out, errOut := cl.apply(ctx, file, "--adopt"); code != 0 {
		t.Fatalf("apply --adopt: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	set := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "crd.projectcalico.org/v1", "kind": "GlobalNetworkSet",
		"metadata": map[string]any{"name": "owners-set", "labels": map[string]any{"role": "owner"}},
		"spec":     map[string]any{"nets": []any{"192.0.2.0/24"}},
	}}
	cl.create(set)

	code, out, errOut := cl.apply(ctx, file+"components:\n  whisker: {enabled: true}\n  goldmane: {enabled: false}\n")
	if code != 1 || !strings.Contains(errOut, "components.whisker.enabled") {
		t.Fatalf("whisker without goldmane: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	off := file + "components:\n  apiServer: {enabled: false}\n"
	// Deleting a workload is disruptive (its pods stop): the dry run says so, and apply needs
	// --allow-disruption as for any disruptive change.
	code, out, errOut = cl.apply(ctx, off, "--dry-run")
	if code != 1 || !strings.Contains(out, "calico-apiserver (components.apiServer.enabled: false): its objects are deleted") ||
		!strings.Contains(out, "- Deployment calico-system/calico-apiserver (apps)  [disruptive]") {
		t.Fatalf("dry run turning calico-apiserver off: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut = cl.apply(ctx, off, "--allow-disruption")
	if code != 0 {
		t.Fatalf("apply turning calico-apiserver off: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	apiService := strings.Index(out, "deleted APIService v3.projectcalico.org")
	backend := strings.Index(out, "deleted Deployment calico-system/calico-apiserver")
	if apiService < 0 || backend < 0 || apiService > backend {
		t.Errorf("the APIService was not deleted before its backend (APIService at %d, Deployment at %d):\n%s", apiService, backend, out)
	}
	gone := []client.Object{&appsv1.Deployment{}, &corev1.Service{}}
	for i, name := range []string{"calico-apiserver", "calico-api"} {
		if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "calico-system", Name: name}, gone[i]); err == nil {
			t.Errorf("%T calico-system/%s is still there", gone[i], name)
		}
	}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apiregistration.k8s.io/v1")
	u.SetKind("APIService")
	if err := cl.c.Get(ctx, client.ObjectKey{Name: "v3.projectcalico.org"}, u); err == nil {
		t.Error("the APIService v3.projectcalico.org is still there")
	}
	if err := cl.c.Get(ctx, client.ObjectKeyFromObject(set), set); err != nil {
		t.Errorf("the owner's GlobalNetworkSet is gone: %v", err)
	}
	if code, out, errOut := cl.apply(ctx, off); code != 0 || !strings.Contains(out, "no changes, nothing was written") {
		t.Fatalf("the apply after: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestTakeOverRefusesComponentOptions: an APIServer resource whose spec sets an option calico-pilot
// does not render (apiServerDeployment overrides) refuses the takeover before anything is written,
// naming the field and what to do; nothing of the operator's install changes.
func TestTakeOverRefusesComponentOptions(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	op := cl.operatorInstall(operatorOptions{})
	ctx := context.Background()
	apiServer := &unstructured.Unstructured{}
	apiServer.SetAPIVersion("operator.tigera.io/v1")
	apiServer.SetKind("APIServer")
	apiServer.SetName("default")
	cl.edit(apiServer, "kubectl-edit", func() {
		_ = unstructured.SetNestedStringMap(apiServer.Object, map[string]string{"example.com/zone": "a"},
			"spec", "apiServerDeployment", "spec", "template", "spec", "nodeSelector")
	})
	for _, args := range [][]string{{"--adopt", "--dry-run"}, {"--adopt"}} {
		code, out, errOut := cl.apply(ctx, exampleFile(t), args...)
		if code != 1 || !strings.Contains(errOut, "APIServer default sets spec.apiServerDeployment, which calico-pilot does not render") ||
			!strings.Contains(errOut, "components.apiServer.enabled: false") {
			t.Fatalf("apply %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out, errOut)
		}
	}
	if operatorReplicas(t, cl) != 1 || len(op.ownerRefsToInstallation(t, cl)) == 0 {
		t.Error("the refused takeover changed the operator's install")
	}
}
