package cmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
)

// referenceArgs is the argument list of the reference extension's chart and every other flag of a
// Gardener extension binary (docs/gardener-integration.md §5.1), with non-default values.
var referenceArgs = []string{
	"--config-file=/etc/gardener-extension-networking-calico/config/config.yaml",
	"--max-concurrent-reconciles=7",
	"--healthcheck-max-concurrent-reconciles=3",
	"--heartbeat-namespace=extension-networking-calico-abcde",
	"--heartbeat-renew-interval-seconds=15",
	"--ignore-operation-annotation=true",
	"--leader-election=true",
	"--leader-election-id=networking-calico-leader-election",
	"--leader-election-namespace=extension-networking-calico-abcde",
	"--metrics-bind-address=:8080",
	"--health-bind-address=:8081",
	"--gardener-version=v1.150.0",
	"--self-hosted-shoot-cluster=false",
	"--extension-classes=shoot",
	"--log-level=debug",
	"--log-format=text",
	"--webhook-config-server-host=0.0.0.0",
	"--webhook-config-server-port=10250",
	"--webhook-config-cert-dir=/tmp/cert",
	"--controllers=heartbeat",
	"--kubeconfig=/var/run/kubeconfig",
	"--master=https://seed.example:6443",
}

func parseController(t *testing.T, args []string) (*ControllerOptions, error) {
	t.Helper()
	o := NewControllerOptions()
	fs := pflag.NewFlagSet("controller", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return o, o.Extension.Validate()
}

func TestExtensionFlagsReferenceArgs(t *testing.T) {
	o, err := parseController(t, referenceArgs)
	if err != nil {
		t.Fatalf("the reference's arguments are rejected: %v", err)
	}
	// What Complete would have built; --master overrides its host.
	o.rest = &rest.Config{Host: "https://from-kubeconfig:443"}
	o.Extension.ApplyTo(o)
	got := struct {
		LeaderElect             bool
		LeaderElectionID        string
		LeaderElectionNamespace string
		MaxConcurrent           int
		IgnoreOperation         bool
		Host                    string
		Heartbeat               bool
		HeartbeatNamespace      string
		HeartbeatInterval       time.Duration
	}{
		o.LeaderElect, o.LeaderElectionID, o.LeaderElectionNamespace, o.MaxConcurrentReconciles, o.IgnoreOperationAnnotation,
		o.rest.Host, o.Extension.HeartbeatEnabled(), o.Extension.HeartbeatNamespace,
		o.Extension.HeartbeatOptions(o.Extension.Log.Logger(&bytes.Buffer{})).RenewInterval,
	}
	want := got
	want.LeaderElect = true
	want.LeaderElectionID = "networking-calico-leader-election"
	want.LeaderElectionNamespace = "extension-networking-calico-abcde"
	want.MaxConcurrent = 7
	want.IgnoreOperation = true
	want.Host = "https://seed.example:6443"
	want.Heartbeat = true
	want.HeartbeatNamespace = "extension-networking-calico-abcde"
	want.HeartbeatInterval = 15 * time.Second
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("applied options (-want +got):\n%s", diff)
	}
}

func TestExtensionFlagsDefaults(t *testing.T) {
	t.Setenv("LEADER_ELECTION_NAMESPACE", "")
	o, err := parseController(t, []string{"--leader-election-namespace=ns-from-flag"})
	if err != nil {
		t.Fatal(err)
	}
	o.Extension.ApplyTo(o)
	if !o.LeaderElect || !o.Extension.HeartbeatEnabled() || o.Extension.HeartbeatNamespace != "ns-from-flag" ||
		o.Extension.HeartbeatRenewIntervalSeconds != 30 || o.Extension.Log.Level != "info" || o.Extension.Log.Format != "json" {
		t.Errorf("defaults: leader election %t, heartbeat %t in %q every %ds, log %s/%s; want true, true in ns-from-flag every 30s, info/json",
			o.LeaderElect, o.Extension.HeartbeatEnabled(), o.Extension.HeartbeatNamespace, o.Extension.HeartbeatRenewIntervalSeconds, o.Extension.Log.Level, o.Extension.Log.Format)
	}
	t.Setenv("LEADER_ELECTION_NAMESPACE", "ns-from-env")
	o, _ = parseController(t, []string{"--leader-election-namespace=ns-from-flag"})
	o.Extension.ApplyTo(o)
	if o.Extension.HeartbeatNamespace != "ns-from-env" {
		t.Errorf("heartbeat namespace = %q, want $LEADER_ELECTION_NAMESPACE (ns-from-env)", o.Extension.HeartbeatNamespace)
	}
}

func TestExtensionFlagsSwitches(t *testing.T) {
	tests := []struct {
		args          []string
		leaderElect   bool
		heartbeatOn   bool
		wantErrSubstr string
	}{
		{args: []string{"--leader-election=false"}, leaderElect: false, heartbeatOn: true},
		{args: []string{"--leader-elect=false"}, leaderElect: false, heartbeatOn: true},
		{args: []string{"--disable-controllers=heartbeat"}, leaderElect: true, heartbeatOn: false},
		{args: []string{"--controllers="}, leaderElect: true, heartbeatOn: false},
		{args: []string{"--leader-election=false", "--leader-elect=true"}, wantErrSubstr: "--leader-election=false contradicts --leader-elect=true"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			o, err := parseController(t, tt.args)
			if tt.wantErrSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErrSubstr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErrSubstr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			o.Extension.ApplyTo(o)
			if o.LeaderElect != tt.leaderElect || o.Extension.HeartbeatEnabled() != tt.heartbeatOn {
				t.Errorf("leader election %t, heartbeat %t; want %t, %t", o.LeaderElect, o.Extension.HeartbeatEnabled(), tt.leaderElect, tt.heartbeatOn)
			}
		})
	}
}

// TestExtensionFlagsRejectBadValues: bad values exit 2 with one line naming the flag and what is accepted,
// before anything connects to a cluster.
func TestExtensionFlagsRejectBadValues(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--log-level=verbose"}, `--log-level "verbose": must be one of debug, info, error`},
		{[]string{"--log-format=logfmt"}, `--log-format "logfmt": must be one of json, text`},
		{[]string{"--heartbeat-renew-interval-seconds=0"}, "--heartbeat-renew-interval-seconds 0: must be greater than 0"},
		{[]string{"--controllers=heartbeat,network"}, `--controllers: unknown controller "network", switchable controllers are heartbeat (the Network controller always runs)`},
		{[]string{"--disable-controllers=hearbeat"}, `--disable-controllers: unknown controller "hearbeat"`},
		{[]string{"--extension-classes=shot"}, `--extension-classes: unknown class "shot", Gardener's classes are shoot, seed, garden`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			code, _, got := runCLI(t, append([]string{"controller"}, tt.args...)...)
			if code != ExitUsage {
				t.Errorf("exit code %d, want %d; stderr: %s", code, ExitUsage, got)
			}
			if strings.Count(strings.TrimSpace(got), "\n") != 0 || !strings.HasPrefix(got, "error: ") || !strings.Contains(got, tt.want) {
				t.Errorf("stderr %q, want one error line containing %q", got, tt.want)
			}
		})
	}
}

func TestControllerVersionFlag(t *testing.T) {
	code, out, errOut := runCLI(t, "controller", "--version")
	if code != ExitOK {
		t.Fatalf("exit code %d; stderr %s", code, errOut)
	}
	if got := strings.TrimSpace(out); got != Version {
		t.Errorf("--version printed %q, want %q", got, Version)
	}
}

func TestExtensionLogger(t *testing.T) {
	for _, tt := range []struct {
		level, format string
		check         func(string) bool
	}{
		{"info", "json", func(s string) bool {
			return strings.HasPrefix(s, "{") && strings.Contains(s, `"msg":"shown"`) && !strings.Contains(s, "hidden")
		}},
		{"debug", "text", func(s string) bool {
			return !strings.HasPrefix(s, "{") && strings.Contains(s, "shown") && strings.Contains(s, "hidden")
		}},
		{"error", "json", func(s string) bool { return s == "" }},
	} {
		f := NewExtensionFlags()
		f.Log.Level, f.Log.Format = tt.level, tt.format
		var buf bytes.Buffer
		log := f.Log.Logger(&buf)
		log.Info("shown")
		log.V(1).Info("hidden")
		if !tt.check(buf.String()) {
			t.Errorf("--log-level=%s --log-format=%s wrote %q", tt.level, tt.format, buf.String())
		}
	}
}

func TestAdmissionGardenerFlagsRejectBadValues(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--webhook-config-mode=service"}, `--webhook-config-mode "service": supported is url`},
		{[]string{"--webhook-config-mode=url", "--webhook-config-namespace=garden"}, "--webhook-config-url: required in url mode"},
		{[]string{"--webhook-config-mode=url", "--webhook-config-url=a.garden"}, "--webhook-config-namespace: required"},
		{[]string{"--webhook-config-url=a.garden"}, "--webhook-config-url needs --webhook-config-mode=url"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			code, _, errOut := runCLI(t, append([]string{"admission"}, tt.args...)...)
			if code != ExitUsage || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, ExitUsage, tt.want)
			}
		})
	}
}
