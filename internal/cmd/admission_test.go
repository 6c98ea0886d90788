package cmd

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}

func TestAdmissionCommandRejectsBadFlags(t *testing.T) {
	certDir := testenv.WriteServingCert(t)
	tests := []struct {
		name      string
		args      []string
		wantLines []string
	}{
		{
			name:      "port out of range",
			args:      []string{"admission", "--cert-dir", certDir, "--port", "70000"},
			wantLines: []string{"error: --port 70000: must be between 1 and 65535"},
		},
		{
			name: "cert dir without certificate",
			args: []string{"admission", "--cert-dir", "/nonexistent/certs"},
			wantLines: []string{
				"error: --cert-dir /nonexistent/certs: tls.crt is not readable (it must hold tls.crt and tls.key): stat /nonexistent/certs/tls.crt: no such file or directory",
				"--cert-dir /nonexistent/certs: tls.key is not readable (it must hold tls.crt and tls.key): stat /nonexistent/certs/tls.key: no such file or directory",
			},
		},
		{
			name: "bind addresses without port",
			args: []string{"admission", "--cert-dir", certDir, "--metrics-bind-address", "localhost", "--health-probe-bind-address", "8081"},
			wantLines: []string{
				`error: --metrics-bind-address "localhost": must be host:port, :port or 0: address localhost: missing port in address`,
				`--health-probe-bind-address "8081": must be host:port, :port or 0: address 8081: missing port in address`,
			},
		},
		{
			name:      "verbosity above 1",
			args:      []string{"admission", "--cert-dir", certDir, "--verbosity", "7"},
			wantLines: []string{"error: --verbosity 7: must be 0 (info) or 1 (debug)"},
		},
		{
			// Checked before the gardener-mode start-up (which logs) and before any server starts.
			name: "bad bind flags in gardener mode",
			args: []string{"admission", "--cert-dir", certDir, "--webhook-config-mode", "url", "--webhook-config-url", "x.garden",
				"--webhook-config-namespace", "garden", "--bind-host", "not-a-host", "--metrics-bind-address", ":99999"},
			wantLines: []string{
				`error: --metrics-bind-address ":99999": the port must be a number from 0 to 65535`,
				`--bind-host "not-a-host": must be an IP address, localhost or empty (all addresses)`,
			},
		},
		{
			name:      "unknown flag",
			args:      []string{"admission", "--cert", certDir},
			wantLines: []string{"error: unknown flag: --cert"},
		},
		{
			name:      "arguments",
			args:      []string{"admission", "extra"},
			wantLines: []string{`error: unknown command "extra" for "calico-pilot admission"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, tt.args...)
			if code != ExitUsage {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, ExitUsage, errOut)
			}
			if diff := cmp.Diff(tt.wantLines, strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAdmissionCommandServesAndStops runs the command as the chart does, waits until /readyz says the
// webhook serves TLS, checks that the webhook answers at its path, and stops it by cancelling the context
// (SIGTERM in main): the command then exits 0.
func TestAdmissionCommandServesAndStops(t *testing.T) {
	certDir := testenv.WriteServingCert(t)
	port := freePort(t)
	health := "127.0.0.1:" + strconv.Itoa(freePort(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var out, errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Execute(ctx, []string{"admission", "--cert-dir", certDir, "--bind-host", "127.0.0.1", "--port", strconv.Itoa(port),
			"--metrics-bind-address", "0", "--health-probe-bind-address", health, "--drain-period", "200ms"}, strings.NewReader(""), &out, &errOut)
	}()

	client := &http.Client{Timeout: time.Second}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 20*time.Second, true, func(context.Context) (bool, error) {
		select {
		case code := <-done:
			t.Fatalf("admission exited early with %d: %s", code, errOut.String())
		default:
		}
		resp, err := client.Get("http://" + health + "/readyz")
		if err != nil {
			return false, nil
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		t.Fatalf("/readyz never answered 200: %v\n%s", err, errOut.String())
	}

	// The webhook path answers AdmissionReviews: an invalid calico Shoot is denied with its field path.
	pool := x509.NewCertPool()
	crt, err := os.ReadFile(filepath.Join(certDir, "tls.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool.AppendCertsFromPEM(crt)
	tlsClient := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsConfig(pool)}}
	review := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"42",` +
		`"kind":{"group":"core.gardener.cloud","version":"v1beta1","kind":"Shoot"},` +
		`"resource":{"group":"core.gardener.cloud","version":"v1beta1","resource":"shoots"},` +
		`"name":"s","namespace":"garden-dev","operation":"CREATE","userInfo":{},` +
		`"object":{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Shoot","metadata":{"name":"s"},` +
		`"spec":{"networking":{"type":"calico","providerConfig":{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1",` +
		`"kind":"NetworkConfig","backend":"bgp"}},"kubernetes":{"version":"1.36.1"},"provider":{"type":"aws","workers":[{"name":"a"}]}}}}}`
	resp, err := tlsClient.Post("https://127.0.0.1:"+strconv.Itoa(port)+"/webhooks/validate-shoot", "application/json", strings.NewReader(review))
	if err != nil {
		t.Fatalf("POST to the webhook: %v", err)
	}
	var got admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatalf("decoding the AdmissionReview response: %v", err)
	}
	_ = resp.Body.Close()
	if got.Response == nil || got.Response.UID != "42" || got.Response.Allowed || got.Response.Result == nil ||
		got.Response.Result.Details == nil || len(got.Response.Result.Details.Causes) != 1 ||
		got.Response.Result.Details.Causes[0].Field != "spec.networking.providerConfig.backend" {
		t.Errorf("webhook response = %+v, want uid 42 denied with one cause at spec.networking.providerConfig.backend", got.Response)
	}

	cancel()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("exit code after cancel = %d, want 0; stderr:\n%s", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("admission did not stop after its context was cancelled")
	}
}

func tlsConfig(roots *x509.CertPool) *tls.Config {
	return &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
}
