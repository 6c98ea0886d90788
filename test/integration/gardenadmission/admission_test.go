package gardenadmission

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/certs"
	"github.com/calico-pilot/calico-pilot/internal/cmd"
	"github.com/calico-pilot/calico-pilot/internal/gardenadmission"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

var runtimeCP, virtualCP *testenv.ControlPlane

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	var err error
	// The runtime cluster has the VPA CRD: the admission chart's VerticalPodAutoscaler is applied in the
	// swap test.
	vpaDir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/autoscaler/vertical-pod-autoscaler").Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "locating the VPA module for its CRD: %v\n", err)
		return 1
	}
	runtimeCP, err = testenv.Start(testenv.Options{CRDDirectoryPaths: []string{filepath.Join(strings.TrimSpace(string(vpaDir)), "deploy", "vpa-v1-crd-gen.yaml")}})
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting runtime cluster: %v\n", err)
		return 1
	}
	defer runtimeCP.Stop()
	shootCRD := filepath.Join(testenv.RepoRoot(), "test", "integration", "webhook", "testdata", "crds")
	virtualCP, err = testenv.Start(testenv.Options{CRDDirectoryPaths: []string{shootCRD}})
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting virtual garden: %v\n", err)
		return 1
	}
	defer virtualCP.Stop()
	return m.Run()
}

func kubeconfigFile(t *testing.T, cp *testenv.ControlPlane, name string) string {
	t.Helper()
	data, err := cp.AdminKubeconfig(name)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".kubeconfig")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func newClient(t *testing.T, cp *testenv.ControlPlane) client.Client {
	t.Helper()
	c, err := cp.NewClient(clientgoscheme.AddToScheme)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func poll(t *testing.T, what string, timeout time.Duration, cond func() (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, timeout, true, func(context.Context) (bool, error) { return cond() }); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

var shootGVR = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}

func shoot(name, providerConfig string) *unstructured.Unstructured {
	pc := map[string]any{}
	_ = json.Unmarshal([]byte(providerConfig), &pc)
	pc["apiVersion"] = "calico.networking.extensions.gardener.cloud/v1alpha1"
	pc["kind"] = "NetworkConfig"
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1",
		"kind":       "Shoot",
		"metadata":   map[string]any{"name": name, "labels": map[string]any{gardenadmission.CalicoShootLabel: "true"}},
		"spec": map[string]any{
			"networking": map[string]any{"type": "calico", "nodes": "10.250.0.0/16", "pods": "100.96.0.0/11", "services": "100.64.0.0/13", "providerConfig": pc},
			"kubernetes": map[string]any{"version": "1.36.1"},
			"provider":   map[string]any{"type": "aws", "workers": []any{map[string]any{"name": "pool-a"}}},
		},
	}}
}

// checkAdmission creates an invalid and a valid calico Shoot in the virtual garden: the first is denied by
// the API server with our field path, the second admitted.
func checkAdmission(t *testing.T, shoots dynamic.ResourceInterface, suffix string) {
	t.Helper()
	_, err := shoots.Create(context.Background(), shoot("invalid-"+suffix, `{"backend":"bgp"}`), metav1.CreateOptions{})
	var st apierrors.APIStatus
	if err == nil || !errors.As(err, &st) {
		t.Fatalf("invalid Shoot: error %v, want a denial", err)
	}
	if !strings.Contains(err.Error(), `admission webhook "`+gardenadmission.WebhookName+`" denied the request`) {
		t.Errorf("invalid Shoot: error %q is not our webhook's denial", err)
	}
	var fields []string
	if d := st.Status().Details; d != nil {
		for _, c := range d.Causes {
			fields = append(fields, c.Field)
		}
	}
	if len(fields) != 1 || fields[0] != "spec.networking.providerConfig.backend" {
		t.Errorf("denial causes %v, want spec.networking.providerConfig.backend", fields)
	}
	if _, err := shoots.Create(context.Background(), shoot("valid-"+suffix, `{"overlay":{"enabled":true}}`), metav1.CreateOptions{}); err != nil {
		t.Errorf("valid Shoot denied: %v", err)
	}
}

// servedIssuer returns the issuer of the certificate the server presents.
func servedIssuer(addr string) (string, error) {
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only reads the presented certificate
	if err != nil {
		return "", err
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].Issuer.CommonName, nil
}

// caName is the common name of the first certificate in pemData (each generated CA has its own).
func caName(pemData []byte) string {
	if names := bundleNames(pemData); len(names) > 0 {
		return names[0]
	}
	return ""
}

func TestAdmissionInTheGarden(t *testing.T) {
	runtimeClient, virtualClient := newClient(t, runtimeCP), newClient(t, virtualCP)
	ctx := context.Background()
	for _, ns := range []struct {
		c    client.Client
		name string
	}{{runtimeClient, "garden"}, {virtualClient, "extension-networking-calico"}, {virtualClient, "garden-dev"}} {
		if err := ns.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns.name}}); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(cmd.EnvGardenKubeconfig, kubeconfigFile(t, virtualCP, "admission-virtual"))
	t.Setenv(cmd.EnvSourceCluster, "enabled")
	t.Setenv(cmd.EnvSourceKubeconfig, kubeconfigFile(t, runtimeCP, "admission-runtime"))
	t.Setenv("KUBECONFIG", "")

	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	certDir := t.TempDir()
	args := []string{"admission",
		// The reference runtime chart's flags (§4.3) ...
		fmt.Sprintf("--webhook-config-server-port=%d", port),
		"--webhook-config-mode=url",
		"--webhook-config-url=" + addr,
		"--webhook-config-namespace=garden",
		"--webhook-config-owner-namespace=extension-networking-calico",
		fmt.Sprintf("--health-bind-address=127.0.0.1:%d", freePort(t)),
		"--metrics-bind-address=0",
		"--leader-election-id=gardener-extension-admission-calico",
		// ... plus where to listen and write the certificate, and a CA short-lived enough to rotate in the test.
		"--webhook-config-server-host=127.0.0.1",
		"--webhook-config-cert-dir=" + certDir,
		"--drain-period=200ms",
		"--webhook-config-sync-period=1s",
		"--webhook-config-ca-validity=20s",
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan int, 1)
	var stderr lockedBuffer
	go func() { done <- cmd.Execute(runCtx, args, strings.NewReader(""), io.Discard, &stderr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("admission exited %d: %s", code, stderr.String())
			}
		case <-time.After(30 * time.Second):
			t.Error("admission did not stop")
		}
	})

	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	poll(t, "the webhook configuration in the virtual garden", 30*time.Second, func() (bool, error) {
		select {
		case code := <-done:
			return false, fmt.Errorf("admission exited %d: %s", code, stderr.String())
		default:
		}
		err := virtualClient.Get(ctx, client.ObjectKey{Name: gardenadmission.WebhookConfigurationName}, vwc)
		return err == nil, client.IgnoreNotFound(err)
	})
	hook := vwc.Webhooks[0]
	// The reference's path (the server serves both): a swap keeps the URL the API server calls.
	if got, want := *hook.ClientConfig.URL, "https://"+addr+"/webhooks/validate"; got != want {
		t.Errorf("webhook URL = %q, want %q", got, want)
	}
	if hook.ClientConfig.Service != nil {
		t.Errorf("url mode registered a service reference %+v", hook.ClientConfig.Service)
	}
	if len(vwc.OwnerReferences) != 1 || vwc.OwnerReferences[0].Kind != "Namespace" || vwc.OwnerReferences[0].Name != "extension-networking-calico" {
		t.Errorf("owner references %+v, want the Namespace extension-networking-calico", vwc.OwnerReferences)
	}
	// SOURCE_CLUSTER: the certificates live in the runtime cluster, not in the virtual garden.
	secret := &corev1.Secret{}
	if err := runtimeClient.Get(ctx, client.ObjectKey{Namespace: "garden", Name: gardenadmission.CertSecretName}, secret); err != nil {
		t.Fatalf("certificate secret in the runtime cluster: %v", err)
	}
	if err := virtualClient.Get(ctx, client.ObjectKey{Namespace: "garden", Name: gardenadmission.CertSecretName}, &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Errorf("certificate secret in the virtual garden: %v, want NotFound", err)
	}
	firstCA := caName(secret.Data[certs.KeyCACert])
	if !bytes.Contains(hook.ClientConfig.CABundle, secret.Data[certs.KeyCACert]) {
		t.Errorf("the registered caBundle does not hold the generated CA")
	}

	dyn, err := dynamic.NewForConfig(virtualCP.Config)
	if err != nil {
		t.Fatal(err)
	}
	shoots := dyn.Resource(shootGVR).Namespace("garden-dev")
	checkAdmission(t, shoots, "before")

	// Rotation: the CA (20s) is renewed 10s before it expires; wait until the server presents a
	// certificate of the new CA, which the registered bundle must hold, and admit again.
	var newCA string
	poll(t, "CA rotation and the server serving the new certificate", 40*time.Second, func() (bool, error) {
		s := &corev1.Secret{}
		if err := runtimeClient.Get(ctx, client.ObjectKeyFromObject(secret), s); err != nil {
			return false, err
		}
		newCA = caName(s.Data[certs.KeyCACert])
		if newCA == firstCA {
			return false, nil
		}
		issuer, err := servedIssuer(addr)
		return err == nil && issuer == newCA, nil
	})
	if err := virtualClient.Get(ctx, client.ObjectKeyFromObject(vwc), vwc); err != nil {
		t.Fatal(err)
	}
	if names := bundleNames(vwc.Webhooks[0].ClientConfig.CABundle); !contains(names, newCA) {
		t.Errorf("registered caBundle holds %v, want the new CA %s", names, newCA)
	}
	checkAdmission(t, shoots, "after")
}
