package apiserverendpoints_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/calico-pilot/calico-pilot/internal/apiserverendpoints"
	"github.com/calico-pilot/calico-pilot/internal/testcheck"
)

func TestOptions(t *testing.T) {
	resolvConf := filepath.Join(t.TempDir(), "resolv.conf")
	if err := os.WriteFile(resolvConf, []byte("nameserver 10.96.0.10\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		args        []string
		wantErr     string
		wantServers []string
		wantBackoff wait.Backoff
	}{
		{
			name:        "nameservers from the resolv.conf flag",
			args:        []string{"--kube-apiserver-dns-resolv-conf=" + resolvConf},
			wantServers: []string{"10.96.0.10:53"},
			wantBackoff: wait.Backoff{Duration: time.Second, Factor: 2, Steps: 4, Cap: 10 * time.Second},
		},
		{
			name:        "explicit nameservers win",
			args:        []string{"--kube-apiserver-dns-resolv-conf=" + resolvConf, "--kube-apiserver-dns-nameservers=192.0.2.53,[2001:db8::53]:5353", "--kube-apiserver-dns-attempts=2"},
			wantServers: []string{"192.0.2.53:53", "[2001:db8::53]:5353"},
			wantBackoff: wait.Backoff{Duration: time.Second, Factor: 2, Steps: 2, Cap: 10 * time.Second},
		},
		{
			name:    "zero attempts",
			args:    []string{"--kube-apiserver-dns-attempts=0"},
			wantErr: "--kube-apiserver-dns-attempts is 0: it must be at least 1",
		},
		{
			name:    "minimum above maximum",
			args:    []string{"--kube-apiserver-dns-requeue-min=2h", "--kube-apiserver-dns-requeue-max=1h"},
			wantErr: "--kube-apiserver-dns-requeue-min 2h0m0s is above --kube-apiserver-dns-requeue-max 1h0m0s",
		},
		{
			name:    "no nameserver source",
			args:    []string{"--kube-apiserver-dns-resolv-conf="},
			wantErr: "neither --kube-apiserver-dns-nameservers nor --kube-apiserver-dns-resolv-conf is set: one is needed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := apiserverendpoints.NewOptions()
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			o.AddFlags(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			err := o.Validate()
			if testcheck.Err(t, err, tt.wantErr) {
				return
			}
			r, err := o.Resolver()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantServers, r.Servers()); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantBackoff, o.Backoff()); diff != "" {
				t.Errorf("backoff (-want +got):\n%s", diff)
			}
		})
	}
}
