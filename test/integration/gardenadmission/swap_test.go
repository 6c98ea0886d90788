package gardenadmission

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader"
	"helm.sh/helm/v4/pkg/engine"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/calico-pilot/calico-pilot/internal/cmd"
	"github.com/calico-pilot/calico-pilot/internal/gardenadmission"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// The swap of issue 20 item 1: gardener-operator's Extension replaces the reference admission's objects
// in namespace garden of the runtime cluster with calico-pilot's, in the same ManagedResource, and the
// resource manager applies them one by one in Helm's install order by kind (docs/gardener-integration.md
// §2.2 step 4): ServiceAccount, Role, RoleBinding, Service, Deployment, ..., unknown kinds (the VPA)
// last. The webhook (failurePolicy Fail) must answer throughout.

// referenceApp is the reference admission's name (and its selector's name label).
const referenceApp = "gardener-extension-admission-calico"

// referenceRelease is the Helm release of the reference's admission chart: the Extension's name
// (docs/gardener-integration.md §4.2), the selector's instance label.
const referenceRelease = "networking-calico"

// referenceAdmissionObjects are the reference admission's objects in the runtime cluster, from
// docs/gardener-integration.md §4.3: Service 443 -> 10250 with the webhook-targets annotation, a Deployment
// labelled high-availability-config type server whose pods carry to-dns, to-runtime-apiserver and
// to-virtual-garden-kube-apiserver-tcp-443 and run the admission with the listed flags, a PDB (1,
// AlwaysAllow) and a VPA. Every object and the pod template carry the chart's two labels,
// app.kubernetes.io/name=gardener-extension-admission-calico and app.kubernetes.io/instance=<release>
// (the release is the Extension's name, networking-calico), and the Deployment, Service and PDB select
// on exactly those two (§4.3). The container port has no name: the Service's target port is a number.
func referenceAdmissionObjects(ns string) []client.Object {
	sel := map[string]string{"app.kubernetes.io/name": referenceApp, "app.kubernetes.io/instance": referenceRelease}
	podLabels := map[string]string{
		"app.kubernetes.io/name":                                                       referenceApp,
		"app.kubernetes.io/instance":                                                   referenceRelease,
		"networking.gardener.cloud/to-dns":                                             "allowed",
		"networking.gardener.cloud/to-runtime-apiserver":                               "allowed",
		"networking.resources.gardener.cloud/to-virtual-garden-kube-apiserver-tcp-443": "allowed",
	}
	meta := func(labels map[string]string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: referenceApp, Namespace: ns, Labels: labels}
	}
	return []client.Object{
		&corev1.ServiceAccount{ObjectMeta: meta(sel)},
		&corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: referenceApp, Namespace: ns, Labels: sel, Annotations: map[string]string{
				"networking.resources.gardener.cloud/from-all-webhook-targets-allowed-ports": `[{"protocol":"TCP","port":10250}]`,
			}},
			Spec: corev1.ServiceSpec{
				Selector: sel,
				Ports:    []corev1.ServicePort{{Port: 443, TargetPort: intstr.FromInt32(10250), Protocol: corev1.ProtocolTCP}},
			},
		},
		&appsv1.Deployment{
			ObjectMeta: meta(map[string]string{"app.kubernetes.io/name": referenceApp, "app.kubernetes.io/instance": referenceRelease, "high-availability-config.resources.gardener.cloud/type": "server"}),
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](2),
				Selector: &metav1.LabelSelector{MatchLabels: sel},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
					Spec: corev1.PodSpec{
						ServiceAccountName: referenceApp,
						PriorityClassName:  "gardener-garden-system-400",
						Containers: []corev1.Container{{
							Name:  referenceApp,
							Image: "europe-docker.pkg.dev/gardener-project/public/gardener/extensions/admission-calico:v1.60.0",
							Args: []string{
								"--webhook-config-server-port=10250", "--webhook-config-mode=url",
								"--webhook-config-url=gardener-extension-admission-calico." + ns, "--webhook-config-namespace=" + ns,
								"--webhook-config-owner-namespace=extension-networking-calico",
								"--health-bind-address=:8081", "--metrics-bind-address=:8080",
								"--leader-election-id=gardener-extension-admission-calico",
							},
							Env:   []corev1.EnvVar{{Name: "SOURCE_CLUSTER", Value: "enabled"}},
							Ports: []corev1.ContainerPort{{ContainerPort: 10250, Protocol: corev1.ProtocolTCP}},
						}},
					},
				},
			},
		},
		pdb(ns, sel),
		&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "autoscaling.k8s.io/v1", "kind": "VerticalPodAutoscaler",
			"metadata": map[string]any{"name": referenceApp, "namespace": ns},
			"spec": map[string]any{
				"targetRef":    map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": referenceApp},
				"updatePolicy": map[string]any{"updateMode": "Auto"},
			},
		}},
	}
}

// grmKindOrder is Helm's install order by kind, as the resource manager applies a ManagedResource's
// objects (docs/gardener-integration.md §2.2 step 4); kinds not listed come last, by kind then name.
var grmKindOrder = []string{
	"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
	"PodDisruptionBudget", "ServiceAccount", "Secret", "ConfigMap", "StorageClass", "PersistentVolume",
	"PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding", "Role",
	"RoleBinding", "Service", "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
	"HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress", "APIService",
	"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
}

func grmSort(objs []*unstructured.Unstructured) {
	rank := func(kind string) int {
		for i, k := range grmKindOrder {
			if k == kind {
				return i
			}
		}
		return len(grmKindOrder)
	}
	sort.SliceStable(objs, func(i, j int) bool {
		ri, rj := rank(objs[i].GetKind()), rank(objs[j].GetKind())
		if ri != rj {
			return ri < rj
		}
		if objs[i].GetKind() != objs[j].GetKind() {
			return objs[i].GetKind() < objs[j].GetKind()
		}
		return objs[i].GetName() < objs[j].GetName()
	})
}

// grmApply applies desired as the resource manager does (§2.2 step 5, §2.3): create when missing,
// otherwise a full update with the desired body, the live metadata (labels and annotations merged,
// desired winning) and the live status.
func grmApply(ctx context.Context, c client.Client, desired *unstructured.Unstructured) error {
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(desired.GroupVersionKind())
	err := c.Get(ctx, client.ObjectKeyFromObject(desired), live)
	if apierrors.IsNotFound(err) {
		return c.Create(ctx, desired.DeepCopy())
	}
	if err != nil {
		return err
	}
	obj := desired.DeepCopy()
	merge := func(l, d map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range l {
			out[k] = v
		}
		for k, v := range d {
			out[k] = v
		}
		return out
	}
	md := live.Object["metadata"].(map[string]any)
	md["labels"] = toAny(merge(live.GetLabels(), desired.GetLabels()))
	md["annotations"] = toAny(merge(live.GetAnnotations(), desired.GetAnnotations()))
	obj.Object["metadata"] = md
	if st, ok := live.Object["status"]; ok {
		obj.Object["status"] = st
	}
	return c.Update(ctx, obj)
}

func toAny(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// renderAdmissionRuntime renders deploy/calico-pilot-admission as gardener-operator does for the
// runtime cluster (schema enforced, strict templates).
func renderAdmissionRuntime(t *testing.T, ns string) []*unstructured.Unstructured {
	t.Helper()
	chrt, err := loader.Load(filepath.Join(testenv.RepoRoot(), "deploy", "calico-pilot-admission"))
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]any{"gardener": map[string]any{
		"runtimeCluster": map[string]any{"priorityClassName": "gardener-garden-system-400"},
		"virtualCluster": map[string]any{"enabled": true, "namespace": "extension-networking-calico"},
	}}
	rv, err := util.ToRenderValuesWithSchemaValidation(chrt, values, common.ReleaseOptions{Name: referenceRelease, Namespace: ns, IsInstall: true}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	files, err := engine.Engine{Strict: true}.Render(chrt, rv)
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	for name, content := range files {
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		for _, doc := range strings.Split("\n"+content, "\n---") {
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(u.Object) == 0 {
				continue
			}
			out = append(out, u)
		}
	}
	return out
}

// fakePod is a pod of the admission Deployment: its labels, the ports of its container and the
// loopback address its server listens on.
type fakePod struct {
	name   string
	labels map[string]string
	ports  []corev1.ContainerPort
	addr   string
}

// service stands in for the Service's data path (kube-proxy): every connection to it goes to a ready
// pod the live Service selects whose container has the Service's target port, round robin; with no such
// pod the connection is refused, as the API server sees a Service without endpoints.
type service struct {
	c         client.Client
	ns        string
	mu        sync.Mutex
	pods      []fakePod
	next      int
	noBackend atomic.Int64
	l         net.Listener
}

func (s *service) setPods(pods ...fakePod) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pods = pods
}

func (s *service) endpoints(ctx context.Context) ([]string, error) {
	svc := &corev1.Service{}
	if err := s.c.Get(ctx, client.ObjectKey{Namespace: s.ns, Name: referenceApp}, svc); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, p := range s.pods {
		if !selects(svc.Spec.Selector, p.labels) {
			continue
		}
		tp := svc.Spec.Ports[0].TargetPort
		for _, port := range p.ports {
			if (tp.Type == intstr.Int && port.ContainerPort == tp.IntVal) || (tp.Type == intstr.String && port.Name == tp.StrVal) {
				out = append(out, p.addr)
				break
			}
		}
	}
	return out, nil
}

func selects(sel, labels map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func (s *service) serve() {
	for {
		conn, err := s.l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			eps, err := s.endpoints(context.Background())
			if err != nil || len(eps) == 0 {
				s.noBackend.Add(1)
				return
			}
			s.mu.Lock()
			addr := eps[s.next%len(eps)]
			s.next++
			s.mu.Unlock()
			backend, err := net.Dial("tcp", addr)
			if err != nil {
				s.noBackend.Add(1)
				return
			}
			defer backend.Close()
			go func() { _, _ = io.Copy(backend, conn) }()
			_, _ = io.Copy(conn, backend)
		}()
	}
}

// referenceServer stands in for the reference's admission pods: a TLS server with its own CA at
// /webhooks/validate that allows every request (the Shoots the load sends are valid).
func referenceServer(t *testing.T) (addr string, caPEM []byte, stop func()) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ca-admission-calico-webhook (reference)"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(30 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leafTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "admission-calico-webhook-server"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(30 * 24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	var terminating atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("/webhooks/validate", func(w http.ResponseWriter, r *http.Request) {
		if terminating.Load() {
			// A terminating server tells its clients not to reuse the connection.
			w.Header().Set("Connection", "close")
		}
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		review.Request = nil
		_ = json.NewEncoder(w).Encode(review)
	})
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: key}},
		MinVersion:   tls.VersionTLS12,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	// A terminating pod, in Kubernetes' order: it has left the endpoints (no new connections reach
	// it), keeps answering on the connections it has for a grace period, each answer closing its
	// connection, then finishes what it serves and closes the rest. Closing idle keep-alive
	// connections at once instead races the API server's next request on them (a "broken pipe"
	// that is a transport race of the stand-in, not a missing endpoint).
	stop = func() {
		terminating.Store(true)
		time.Sleep(2 * time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}
	return l.Addr().String(), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), stop
}

// TestAdmissionSwap replaces the reference admission with calico-pilot's on real API servers: the
// reference's objects (and its webhook registration, served by a stand-in with its own CA) are there;
// calico-pilot's chart is applied over them in the resource manager's order; the Deployment's rollout
// replaces the reference's pod with calico-pilot's real server once that is ready. Meanwhile calico
// Shoots are created in the virtual garden without pause. Every apply must be accepted, and no Shoot
// write may fail: not for a Service without endpoints (counted separately), nor for a server the
// registered CA bundle does not trust, nor for a path the other server does not serve.
func TestAdmissionSwap(t *testing.T) {
	ctx := context.Background()
	runtimeClient, virtualClient := newClient(t, runtimeCP), newClient(t, virtualCP)
	for _, ns := range []struct {
		c    client.Client
		name string
	}{{virtualClient, "extension-networking-calico"}} {
		if err := ns.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns.name}}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}

	// The release namespace in the runtime cluster (garden in a landscape; a fresh one per run here).
	swapNamespace := testenv.NewNamespace(t, runtimeClient, "garden-swap-", nil)

	// The Service's address, as the virtual garden's kube-apiserver dials it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	svc := &service{c: runtimeClient, ns: swapNamespace, l: l}
	go svc.serve()
	t.Cleanup(func() { _ = l.Close() })
	svcAddr := l.Addr().String()

	// The reference's state: its objects, its pod, its registration.
	for _, o := range referenceAdmissionObjects(swapNamespace) {
		if err := runtimeClient.Create(ctx, o); err != nil {
			t.Fatalf("creating the reference's %T: %v", o, err)
		}
	}
	refDeploy := &appsv1.Deployment{}
	if err := runtimeClient.Get(ctx, client.ObjectKey{Namespace: swapNamespace, Name: referenceApp}, refDeploy); err != nil {
		t.Fatal(err)
	}
	refAddr, refCA, stopReference := referenceServer(t)
	refPod := fakePod{name: "reference", labels: refDeploy.Spec.Template.Labels, ports: refDeploy.Spec.Template.Spec.Containers[0].Ports, addr: refAddr}
	svc.setPods(refPod)
	owner := &corev1.Namespace{}
	if err := virtualClient.Get(ctx, client.ObjectKey{Name: "extension-networking-calico"}, owner); err != nil {
		t.Fatal(err)
	}
	url := "https://" + svcAddr + "/webhooks/validate"
	registration := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{
			Name:            gardenadmission.WebhookConfigurationName,
			Labels:          map[string]string{"remediation.webhook.shoot.gardener.cloud/exclude": "true"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Namespace", Name: owner.Name, UID: owner.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(false)}},
		},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    gardenadmission.WebhookName,
			AdmissionReviewVersions: []string{"v1", "v1beta1"},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			MatchPolicy:             ptr.To(admissionregistrationv1.Exact),
			TimeoutSeconds:          ptr.To[int32](10),
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"core.gardener.cloud"}, APIVersions: []string{"*"}, Resources: []string{"shoots"}},
			}},
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{gardenadmission.CalicoShootLabel: "true"}},
			ClientConfig:   admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: refCA},
		}},
	}
	existing := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := virtualClient.Get(ctx, client.ObjectKeyFromObject(registration), existing); err == nil {
		registration.ResourceVersion = existing.ResourceVersion
		err = virtualClient.Update(ctx, registration)
		if err != nil {
			t.Fatal(err)
		}
	} else if err := virtualClient.Create(ctx, registration); err != nil {
		t.Fatal(err)
	}

	// Shoot writes throughout.
	dyn, err := dynamic.NewForConfig(virtualCP.Config)
	if err != nil {
		t.Fatal(err)
	}
	shoots := dyn.Resource(shootGVR).Namespace(testenv.NewNamespace(t, virtualClient, "garden-swap-shoots-", nil))
	// The API server picks the registration up asynchronously (an earlier test's may still be in its
	// cache): counting starts once the reference's answers.
	poll(t, "the reference's registration in effect", 30*time.Second, func() (bool, error) {
		_, err := shoots.Create(ctx, shoot(fmt.Sprintf("warm-up-%d", time.Now().UnixNano()), `{"overlay":{"enabled":true}}`), metav1.CreateOptions{})
		return err == nil, nil
	})
	var written, failed atomic.Int64
	var failures sync.Map
	stopLoad := make(chan struct{})
	loadDone := make(chan struct{})
	go func() {
		defer close(loadDone)
		for i := 0; ; i++ {
			select {
			case <-stopLoad:
				return
			default:
			}
			_, err := shoots.Create(ctx, shoot(fmt.Sprintf("swap-%d", i), `{"overlay":{"enabled":true}}`), metav1.CreateOptions{})
			written.Add(1)
			if err != nil {
				failed.Add(1)
				failures.Store(err.Error(), true)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	waitWrites := func(n int64) {
		t.Helper()
		target := written.Load() + n
		poll(t, fmt.Sprintf("%d more Shoot writes", n), 60*time.Second, func() (bool, error) { return written.Load() >= target, nil })
	}
	waitWrites(10)

	// The swap: calico-pilot's chart applied in the resource manager's order. After each object, more
	// Shoot writes go through the current state.
	objs := renderAdmissionRuntime(t, swapNamespace)
	grmSort(objs)
	var order []string
	var ours *fakePod
	for _, o := range objs {
		order = append(order, o.GetKind()+"/"+o.GetName())
		if err := grmApply(ctx, runtimeClient, o); err != nil {
			t.Fatalf("the resource manager's apply of %s %s was refused (the swap stops here): %v", o.GetKind(), o.GetName(), err)
		}
		if o.GetKind() == "Deployment" {
			// The Deployment controller's rolling update: a pod of the new template starts; the old one
			// goes only when the new one is ready (maxUnavailable 0 of 2 rounded down).
			live := &appsv1.Deployment{}
			if err := runtimeClient.Get(ctx, client.ObjectKeyFromObject(o), live); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(live.Spec.Selector, refDeploy.Spec.Selector) {
				t.Errorf("the Deployment's selector changed: %v -> %v", refDeploy.Spec.Selector, live.Spec.Selector)
			}
			ours = startPod(t, live, svcAddr)
			svc.setPods(refPod, *ours)
			waitWrites(20) // both pods serve: the API server must trust both certificates
			// The old pod leaves the endpoints and terminates.
			svc.setPods(*ours)
			stopReference()
		}
		waitWrites(5)
	}
	if ours == nil {
		t.Fatal("the chart rendered no Deployment")
	}
	waitWrites(20)
	close(stopLoad)
	<-loadDone
	t.Logf("apply order: %s", strings.Join(order, ", "))
	t.Logf("Shoot writes during the swap: %d, failed: %d, connections without an endpoint: %d", written.Load(), failed.Load(), svc.noBackend.Load())
	if n := svc.noBackend.Load(); n != 0 {
		t.Errorf("%d webhook calls found no endpoint (denials caused by missing endpoints), want 0", n)
	}
	if n := failed.Load(); n != 0 {
		failures.Range(func(k, _ any) bool {
			t.Errorf("Shoot write failed: %s", k)
			return true
		})
		t.Errorf("%d of %d Shoot writes failed during the swap, want 0", n, written.Load())
	}

	// After the swap: calico-pilot's registration, at the reference's URL, trusting calico-pilot's CA
	// and (for the grace period) the reference's.
	if err := virtualClient.Get(ctx, client.ObjectKeyFromObject(registration), existing); err != nil {
		t.Fatal(err)
	}
	if got := *existing.Webhooks[0].ClientConfig.URL; got != url {
		t.Errorf("webhook URL %q, want the reference's %q", got, url)
	}
	names := bundleNames(existing.Webhooks[0].ClientConfig.CABundle)
	if !contains(names, "ca-admission-calico-webhook (reference)") || len(names) < 2 {
		t.Errorf("registered CA bundle %v, want calico-pilot's CA and the reference's", names)
	}
	if _, ok := existing.Annotations[gardenadmission.AnnotationForeignCAUntil]; !ok {
		t.Errorf("registration lacks %s", gardenadmission.AnnotationForeignCAUntil)
	}
	// Only calico-pilot's pod now: an invalid Shoot is denied by calico-pilot.
	checkAdmission(t, shoots, "after-swap")

	// A reference leader still running rewrites the bundle to its own CA (its 5-minute certificate
	// reconcile). calico-pilot, syncing every gardenadmission.FastSyncPeriod while it keeps a foreign CA
	// shortly after start, adds its CA back (the chart's sync period is 5 minutes).
	ourBundle := existing.Webhooks[0].ClientConfig.CABundle
	existing.Webhooks[0].ClientConfig.CABundle = refCA
	if err := virtualClient.Update(ctx, existing); err != nil {
		t.Fatal(err)
	}
	poll(t, "calico-pilot's CA back in the registration", 3*gardenadmission.FastSyncPeriod, func() (bool, error) {
		cur := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		if err := virtualClient.Get(ctx, client.ObjectKeyFromObject(registration), cur); err != nil {
			return false, err
		}
		return string(cur.Webhooks[0].ClientConfig.CABundle) == string(ourBundle), nil
	})
}

// pdb is the reference's PodDisruptionBudget: maxUnavailable 1, AlwaysAllow.
func pdb(ns string, sel map[string]string) client.Object {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
		"metadata": map[string]any{"name": referenceApp, "namespace": ns, "labels": toAny(sel)},
		"spec": map[string]any{
			"maxUnavailable":             int64(1),
			"unhealthyPodEvictionPolicy": "AlwaysAllow",
			"selector":                   map[string]any{"matchLabels": toAny(sel)},
		},
	}}
	return u
}

// startPod runs calico-pilot's admission with the args of the Deployment's template, moved to loopback
// (listen and health ports, the webhook URL = the Service's address, a temporary cert dir), and returns
// it as a pod of that template once its readiness endpoint answers.
func startPod(t *testing.T, d *appsv1.Deployment, svcAddr string) *fakePod {
	t.Helper()
	tmpl := d.Spec.Template
	c := tmpl.Spec.Containers[0]
	port := freePort(t)
	health := freePort(t)
	var args []string
	for _, a := range c.Args {
		switch {
		case strings.HasPrefix(a, "--webhook-config-server-port="):
			a = fmt.Sprintf("--webhook-config-server-port=%d", port)
		case strings.HasPrefix(a, "--webhook-config-url="):
			a = "--webhook-config-url=" + svcAddr
		case strings.HasPrefix(a, "--health-bind-address="):
			a = fmt.Sprintf("--health-bind-address=127.0.0.1:%d", health)
		case strings.HasPrefix(a, "--metrics-bind-address="):
			a = "--metrics-bind-address=0"
		case strings.HasPrefix(a, "--webhook-config-cert-dir="):
			a = "--webhook-config-cert-dir=" + t.TempDir()
		}
		args = append(args, a)
	}
	args = append(args, "--webhook-config-server-host=127.0.0.1")
	for _, e := range c.Env {
		t.Setenv(e.Name, e.Value)
	}
	t.Setenv(cmd.EnvGardenKubeconfig, kubeconfigFile(t, virtualCP, "admission-virtual"))
	t.Setenv(cmd.EnvSourceKubeconfig, kubeconfigFile(t, runtimeCP, "admission-runtime"))
	t.Setenv("KUBECONFIG", "")
	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stderr lockedBuffer
	go func() { done <- cmd.Execute(runCtx, args, strings.NewReader(""), io.Discard, &stderr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("admission did not stop")
		}
	})
	poll(t, "calico-pilot's admission pod ready", 60*time.Second, func() (bool, error) {
		select {
		case code := <-done:
			return false, fmt.Errorf("admission exited %d: %s", code, stderr.String())
		default:
		}
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", health))
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	// The container's ports as the template declares them; the webhook one is where the server listens.
	return &fakePod{name: "calico-pilot", labels: tmpl.Labels, ports: c.Ports, addr: fmt.Sprintf("127.0.0.1:%d", port)}
}
