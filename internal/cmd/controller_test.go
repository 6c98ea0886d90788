package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestControllerCommandRejectsBadInput: bad flags and config files exit 2 with one line naming the
// flag or field and what is accepted, before anything connects to a cluster.
func TestControllerCommandRejectsBadInput(t *testing.T) {
	kubeconfig := writeTemp(t, "kubeconfig", unreachableKubeconfig)
	header := "apiVersion: calico.networking.extensions.config.gardener.cloud/v1alpha1\nkind: ControllerConfiguration\n"
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  []string
	}{
		{
			name:     "unknown feature gate",
			args:     []string{"--config-file", writeTemp(t, "gates.yaml", header+"featureGates:\n  SeamlessOverlaySwich: true\n")},
			wantCode: ExitUsage,
			wantErr:  []string{"featureGates", "SeamlessOverlaySwich"},
		},
		{
			name:     "unknown config field",
			args:     []string{"--config-file", writeTemp(t, "field.yaml", header+"kubeAPIServerGlobalNetworkSet:\n  enable: true\n")},
			wantCode: ExitUsage,
			wantErr:  []string{"kubeAPIServerGlobalNetworkSet.enable"},
		},
		{
			name:     "negative qps and burst",
			args:     []string{"--config-file", writeTemp(t, "qps.yaml", header+"clientConnection:\n  qps: -5\n  burst: -1\n")},
			wantCode: ExitUsage,
			wantErr:  []string{"clientConnection.qps: Invalid value: -5: must not be negative", "clientConnection.burst: Invalid value: -1: must not be negative"},
		},
		{
			name:     "invalid rollout",
			args:     []string{"--config-file", writeTemp(t, "rollout.yaml", header+"calico:\n  rollout:\n    name: r\n    targetVersion: v3.33\n    waves:\n    - {name: a, percent: 50, selector: {matchLabels: {app: canary}}}\n")},
			wantCode: ExitUsage,
			wantErr: []string{`calico.rollout.targetVersion: Invalid value: "v3.33": Calico "v3.33" is not supported; accepted: a line (v3.31, v3.32: its newest release) or a release (v3.31.6, v3.31.7, v3.32.1)`,
				"calico.rollout.waves[0]: Invalid value: \"a\": exactly one of percent and selector must be set"},
		},
		{
			name:     "missing config file",
			args:     []string{"--config-file", filepath.Join(t.TempDir(), "nope.yaml")},
			wantCode: ExitUsage,
			wantErr:  []string{"reading --config-file"},
		},
		{
			// The same validation as render --controller-config (issue 15: silently replaced).
			name:     "negative qps and burst",
			args:     []string{"--config-file", writeTemp(t, "negative.yaml", "apiVersion: calico.networking.extensions.config.gardener.cloud/v1alpha1\nkind: ControllerConfiguration\nclientConnection:\n  qps: -1\n  burst: -5\n")},
			wantCode: ExitUsage,
			wantErr:  []string{"clientConnection.qps: Invalid value: -1: must not be negative", "clientConnection.burst: Invalid value: -5: must not be negative"},
		},
		{
			name:     "no concurrency",
			args:     []string{"--max-concurrent-reconciles", "0"},
			wantCode: ExitUsage,
			wantErr:  []string{"--max-concurrent-reconciles must be at least 1, got 0"},
		},
		{
			name:     "DNS requeue bounds reversed",
			args:     []string{"--kube-apiserver-dns-requeue-min", "2h", "--kube-apiserver-dns-requeue-max", "1h"},
			wantCode: ExitUsage,
			wantErr:  []string{"--kube-apiserver-dns-requeue-min 2h0m0s is above --kube-apiserver-dns-requeue-max 1h0m0s"},
		},
		{
			name:     "unknown flag",
			args:     []string{"--leader-elekt=false"},
			wantCode: ExitUsage,
			wantErr:  []string{"unknown flag: --leader-elekt"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"controller", "--kubeconfig", kubeconfig, "--leader-election-namespace", "garden"}, tt.args...)
			code, _, got := runCLI(t, args...)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d; stderr: %s", code, tt.wantCode, got)
			}
			if strings.Count(strings.TrimSpace(got), "\n") != 0 || !strings.HasPrefix(got, "error: ") {
				t.Errorf("stderr is not one error line: %q", got)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(got, w) {
					t.Errorf("stderr %q does not contain %q", got, w)
				}
			}
			if strings.Contains(got, "goroutine ") {
				t.Errorf("stack trace on stderr: %s", got)
			}
		})
	}
}

// Outside a cluster, leader election without a namespace names the flag and the variable, not
// controller-runtime's Go field (issue 15).
func TestControllerLeaderElectionNamespaceOutsideCluster(t *testing.T) {
	t.Setenv("LEADER_ELECTION_NAMESPACE", "")
	kubeconfig := writeTemp(t, "kubeconfig", unreachableKubeconfig)
	code, _, errOut := runCLI(t, "controller", "--kubeconfig", kubeconfig)
	want := "error: leader election needs the namespace of its lease outside a cluster: give --leader-election-namespace NAMESPACE (or set LEADER_ELECTION_NAMESPACE), or --leader-elect=false\n"
	if code != ExitUsage || errOut != want {
		t.Fatalf("exit %d, stderr %q; want %d and %q", code, errOut, ExitUsage, want)
	}
}

func TestUserAgent(t *testing.T) {
	if got, want := UserAgent(), "calico-pilot/"+Version; got != want {
		t.Errorf("UserAgent() = %q, want %q", got, want)
	}
}

// clientConnection.qps and burst bound the process, not each kind: every client built from the
// seed config shares one token bucket.
func TestControllerSharedRateLimiter(t *testing.T) {
	kubeconfig := writeTemp(t, "kubeconfig", unreachableKubeconfig)
	config := writeTemp(t, "config.yaml", "apiVersion: calico.networking.extensions.config.gardener.cloud/v1alpha1\nkind: ControllerConfiguration\nclientConnection:\n  qps: 7\n  burst: 3\n")
	o := NewControllerOptions()
	fs := pflag.NewFlagSet("controller", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse([]string{"--kubeconfig", kubeconfig, "--config-file", config}); err != nil {
		t.Fatal(err)
	}
	if err := o.Complete(); err != nil {
		t.Fatal(err)
	}
	rl := o.rest.RateLimiter
	if rl == nil || rl.QPS() != 7 {
		t.Fatalf("rate limiter = %v, want one shared bucket at 7 qps", rl)
	}
	// The burst: three requests pass at once, the fourth has to wait.
	for i := range 3 {
		if !rl.TryAccept() {
			t.Fatalf("request %d of the burst of 3 was refused", i+1)
		}
	}
	if rl.TryAccept() {
		t.Error("a fourth request passed a burst of 3")
	}
}
