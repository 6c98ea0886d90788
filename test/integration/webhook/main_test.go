package webhook_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/calico-pilot/calico-pilot/internal/cmd"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// controlPlane is the suite's kube-apiserver + etcd; the admission server runs in this test process and
// the API server calls it for every Shoot create and update.
var controlPlane *testenv.ControlPlane

// healthAddr and metricsAddr are where the suite's admission server serves probes and metrics.
var healthAddr, metricsAddr string

// webhookName is the name of the registered webhook, as the API server quotes it in denials.
const webhookName = "shoots.calico-pilot.networking.extensions.gardener.cloud"

// calicoLabel is the objectSelector label the chart's ValidatingWebhookConfiguration uses.
const calicoLabel = "networking.extensions.gardener.cloud/calico"

func TestMain(m *testing.M) {
	path := "/webhooks/validate-shoot"
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	equivalent := admissionregistrationv1.Equivalent
	scope := admissionregistrationv1.NamespacedScope
	timeout := int32(10)
	// The same registration as deploy/calico-pilot/templates/admission.yaml; envtest points clientConfig
	// at the local server and fills in the CA.
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "calico-pilot"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    webhookName,
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             &none,
			FailurePolicy:           &fail,
			MatchPolicy:             &equivalent,
			TimeoutSeconds:          &timeout,
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{
					APIGroups:   []string{"core.gardener.cloud"},
					APIVersions: []string{"v1beta1"},
					Resources:   []string{"shoots"},
					Scope:       &scope,
				},
			}},
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{calicoLabel: "true"}},
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service: &admissionregistrationv1.ServiceReference{Name: "calico-pilot-admission", Namespace: "calico-pilot", Path: &path},
			},
		}},
	}
	opts := testenv.Options{
		CRDDirectoryPaths: []string{filepath.Join("testdata", "crds")},
		WebhookInstallOptions: envtest.WebhookInstallOptions{
			ValidatingWebhooks: []*admissionregistrationv1.ValidatingWebhookConfiguration{vwc},
		},
	}
	os.Exit(testenv.RunSuite(m, opts, func(cp *testenv.ControlPlane) error {
		controlPlane = cp
		return startAdmission(cp)
	}))
}

// startAdmission runs `calico-pilot admission`'s server (cmd.RunAdmission) on the port and certificate
// envtest prepared, and waits until it accepts TLS connections. It stops when the process exits.
func startAdmission(cp *testenv.ControlPlane) error {
	wio := cp.Env.WebhookInstallOptions
	opts := cmd.NewAdmissionOptions()
	opts.CertDir = wio.LocalServingCertDir
	opts.BindHost = wio.LocalServingHost
	opts.Port = wio.LocalServingPort
	var err error
	if healthAddr, err = freeAddress(); err != nil {
		return err
	}
	if metricsAddr, err = freeAddress(); err != nil {
		return err
	}
	opts.MetricsBindAddress = metricsAddr
	opts.HealthProbeBindAddress = healthAddr
	if err := opts.Validate(); err != nil {
		return fmt.Errorf("admission options: %w", err)
	}
	errc := make(chan error, 1)
	go func() { errc <- cmd.RunAdmission(context.Background(), opts) }()

	addr := net.JoinHostPort(wio.LocalServingHost, strconv.Itoa(wio.LocalServingPort))
	return wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		select {
		case err := <-errc:
			return false, fmt.Errorf("admission server stopped: %w", err)
		default:
		}
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // readiness probe only
		if err != nil {
			return false, nil
		}
		return true, conn.Close()
	})
}

// freeAddress returns a loopback address with a port that was free a moment ago.
func freeAddress() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	return addr, nil
}
