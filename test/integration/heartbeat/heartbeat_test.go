package heartbeat

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/calico-pilot/calico-pilot/internal/heartbeat"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// lease reads the heartbeat Lease; nil when it does not exist.
func lease(t *testing.T, ns string) *coordinationv1.Lease {
	t.Helper()
	l := &coordinationv1.Lease{}
	err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: heartbeat.LeaseName}, l)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// waitForRenewals waits until the Lease exists with the given holder and duration, then until its
// renewTime moves forward twice: renewal is observed, not assumed.
func waitForRenewals(t *testing.T, ns string, holder string, seconds int32) {
	t.Helper()
	var seen []time.Time
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		l := lease(t, ns)
		if l == nil || l.Spec.RenewTime == nil || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != holder {
			return false, nil
		}
		if l.Spec.LeaseDurationSeconds == nil || *l.Spec.LeaseDurationSeconds != seconds {
			t.Fatalf("lease duration = %v, want %d", l.Spec.LeaseDurationSeconds, seconds)
		}
		rt := l.Spec.RenewTime.Time
		if len(seen) == 0 || rt.After(seen[len(seen)-1]) {
			seen = append(seen, rt)
		}
		return len(seen) >= 3, nil
	})
	if err != nil {
		t.Fatalf("lease %s/%s: saw renew times %v, want it created by %q and renewed twice: %v", ns, heartbeat.LeaseName, seen, holder, err)
	}
	if gap := seen[2].Sub(seen[1]); gap < 900*time.Millisecond {
		t.Errorf("renewals %s apart, want about the interval (%ds)", gap, seconds)
	}
}

// TestHeartbeatRunnable runs the heartbeat in a manager (leader election off, so it starts at once).
func TestHeartbeatRunnable(t *testing.T) {
	ns := testenv.NewNamespace(t, cl, "extension-networking-calico-", nil)
	// A Lease left by an earlier holder (e.g. the reference extension) is taken over.
	old := "gardener-extension-networking-calico"
	oldSeconds := int32(30)
	if err := cl.Create(context.Background(), &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: heartbeat.LeaseName},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &old, LeaseDurationSeconds: &oldSeconds, RenewTime: &metav1.MicroTime{Time: time.Now().Add(-time.Hour)}},
	}); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(cp.Config, ctrl.Options{Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0", Logger: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	if err := heartbeat.AddToManager(mgr, heartbeat.Options{Namespace: ns, HolderIdentity: "networking-calico", RenewInterval: time.Second, Log: logr.Discard()}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	waitForRenewals(t, ns, "networking-calico", 1)
}

func TestHeartbeatOptionsValidated(t *testing.T) {
	for _, o := range []heartbeat.Options{
		{HolderIdentity: "x", RenewInterval: time.Second},
		{Namespace: "n", HolderIdentity: "x", RenewInterval: 1500 * time.Millisecond},
		{Namespace: "n", RenewInterval: time.Second},
	} {
		if _, err := heartbeat.New(cl, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestControllerStartsWithReferenceArgs starts `calico-pilot controller` with the argument list of the
// reference extension's chart (plus the other §5.1 flags) and with calico-pilot's chart's, and observes
// the heartbeat Lease it renews; with the heartbeat switched off no Lease appears.
func TestControllerStartsWithReferenceArgs(t *testing.T) {
	kubeconfig, err := cp.AdminKubeconfig("calico-pilot-heartbeat")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	kubeconfigPath, configPath := filepath.Join(dir, "kubeconfig"), filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(kubeconfigPath, kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	config := "apiVersion: calico.networking.extensions.config.gardener.cloud/v1alpha1\nkind: ControllerConfiguration\n" +
		"clientConnection:\n  acceptContentTypes: application/json\n  contentType: application/json\n  qps: 100\n  burst: 130\n"
	if err := os.WriteFile(configPath, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		args      func(ns string) []string
		heartbeat bool
	}{
		{
			name: "reference chart",
			args: func(ns string) []string {
				return []string{
					"--config-file=" + configPath,
					"--max-concurrent-reconciles=5",
					"--healthcheck-max-concurrent-reconciles=5",
					"--heartbeat-namespace=" + ns,
					"--heartbeat-renew-interval-seconds=1",
					"--ignore-operation-annotation=false",
					"--leader-election=true",
					"--leader-election-id=networking-calico-leader-election",
					"--leader-election-namespace=" + ns,
					"--gardener-version=v1.150.0",
					"--self-hosted-shoot-cluster=false",
					"--extension-classes=shoot",
					"--log-level=info",
					"--log-format=json",
					"--webhook-config-server-port=10250",
					"--metrics-bind-address=" + freeAddr(t),
					"--health-bind-address=" + freeAddr(t),
				}
			},
			heartbeat: true,
		},
		{
			name: "calico-pilot chart",
			args: func(ns string) []string {
				return []string{
					"--config-file=" + configPath,
					"--max-concurrent-reconciles=5",
					"--ignore-operation-annotation=false",
					"--leader-election=true",
					"--leader-election-id=networking-calico-leader-election",
					"--leader-election-namespace=" + ns,
					"--metrics-bind-address=" + freeAddr(t),
					"--health-bind-address=" + freeAddr(t),
					"--heartbeat-namespace=" + ns,
					"--heartbeat-renew-interval-seconds=1",
				}
			},
			heartbeat: true,
		},
		{
			name: "heartbeat disabled",
			args: func(ns string) []string {
				return []string{
					"--config-file=" + configPath,
					"--leader-election=false",
					"--heartbeat-namespace=" + ns,
					"--disable-controllers=heartbeat",
					"--metrics-bind-address=0",
					"--health-bind-address=" + freeAddr(t),
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := testenv.NewNamespace(t, cl, "extension-networking-calico-", nil)
			args, err := json.Marshal(append([]string{"controller", "--kubeconfig=" + kubeconfigPath}, tt.args(ns)...))
			if err != nil {
				t.Fatal(err)
			}
			// The controller runs as its own process (this test binary, see TestMain).
			proc := exec.Command(os.Args[0])
			proc.Env = append(os.Environ(), controllerArgsEnv+"="+string(args))
			var stderr lockedWriter
			var buf strings.Builder
			stderr.w = &buf
			proc.Stderr = &stderr
			if err := proc.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- proc.Wait() }()
			t.Cleanup(func() {
				if t.Failed() {
					stderr.mu.Lock()
					t.Logf("controller stderr:\n%s", buf.String())
					stderr.mu.Unlock()
				}
			})
			stop := func() {
				_ = proc.Process.Signal(syscall.SIGTERM)
				select {
				case err := <-done:
					if err != nil {
						t.Errorf("controller exited: %v", err)
					}
				case <-time.After(30 * time.Second):
					_ = proc.Process.Kill()
					t.Error("controller did not stop within 30s of SIGTERM")
				}
			}
			if tt.heartbeat {
				waitForRenewals(t, ns, "networking-calico", 1)
				stop()
				return
			}
			// Give the controller the time it needs to write the Lease if it would (it writes at start).
			time.Sleep(3 * time.Second)
			select {
			case err := <-done:
				t.Fatalf("controller exited early: %v", err)
			default:
			}
			if l := lease(t, ns); l != nil {
				t.Errorf("heartbeat disabled but lease %s exists", l.Name)
			}
			stop()
		})
	}
}
