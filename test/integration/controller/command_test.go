package controller

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/calico-pilot/calico-pilot/internal/cmd"
)

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// syncBuffer is a bytes.Buffer safe for the command's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestControllerCommand runs `calico-pilot controller` in-process against the seed: it serves
// /healthz, /readyz and metrics, reconciles a Network (GlobalNetworkSet from a CNAME resolved by
// --kube-apiserver-dns-nameservers, operator default from --config-file), writes as
// calico-pilot/<version> and stops when its context ends.
func TestControllerCommand(t *testing.T) {
	kubeconfig, err := seedCP.AdminKubeconfig("calico-pilot-command")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	kubeconfigPath := filepath.Join(dir, "kubeconfig")
	configPath := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(kubeconfigPath, kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	config := "apiVersion: calico.networking.extensions.config.gardener.cloud/v1alpha1\nkind: ControllerConfiguration\n" +
		"featureGates:\n  SeamlessOverlaySwitch: true\nkubeAPIServerGlobalNetworkSet:\n  enabled: true\n"
	if err := os.WriteFile(configPath, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startDNS(t)
	srv.set(t, "lb.example.net. 60 IN A 198.51.100.10")
	e := newTestEnv(t, nil)
	e.createDNSRecord("external", "CNAME", "lb.example.net")
	metricsAddr, healthAddr := freeAddr(t), freeAddr(t)

	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- cmd.Execute(ctx, []string{"controller",
			"--kubeconfig", kubeconfigPath, "--config-file", configPath,
			"--leader-elect=true", "--leader-election-namespace", e.ns,
			"--metrics-bind-address", metricsAddr, "--health-bind-address", healthAddr,
			"--kube-apiserver-dns-nameservers", srv.addr,
		}, strings.NewReader(""), io.Discard, &stderr)
	}()
	stopped := false
	stop := func() int {
		if stopped {
			return 0
		}
		stopped = true
		cancel()
		select {
		case code := <-done:
			return code
		case <-time.After(30 * time.Second):
			t.Fatal("controller did not stop within 30s of its context ending")
			return -1
		}
	}
	t.Cleanup(func() { stop() })

	get := func(url string) (int, string) {
		resp, err := http.Get(url)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	e.waitFor("/readyz to answer 200", func() (bool, error) {
		code, _ := get("http://" + healthAddr + "/readyz")
		return code == http.StatusOK, nil
	})
	if code, body := get("http://" + healthAddr + "/healthz"); code != http.StatusOK {
		t.Errorf("/healthz = %d %s", code, body)
	}

	e.createNetwork(providerConfig("overlay:\n  enabled: true\n"))
	e.waitFor("the Network to succeed", func() (bool, error) {
		n := e.network()
		return n.Status.LastOperation != nil && n.Status.LastOperation.State == "Succeeded", nil
	})
	_, nets, ok := e.globalNetworkSet()
	if !ok || len(nets) != 1 || nets[0] != "198.51.100.10/32" {
		t.Errorf("GlobalNetworkSet (operator default on) stored %v with nets %v, want [198.51.100.10/32]", ok, nets)
	}
	mr := e.managedResource()
	managers := map[string]bool{}
	for _, mf := range mr.ManagedFields {
		managers[mf.Manager] = true
	}
	if !managers["calico-pilot"] {
		t.Errorf("ManagedResource field managers %v, want calico-pilot (from the user agent calico-pilot/<version>)", managers)
	}
	e.waitFor("reconcile metrics of the network-calico controller", func() (bool, error) {
		_, body := get("http://" + metricsAddr + "/metrics")
		return strings.Contains(body, `controller_runtime_reconcile_total{controller="network-calico",result="success"}`), nil
	})

	if code := stop(); code != cmd.ExitOK {
		t.Errorf("exit code after the context ended = %d, want 0; stderr:\n%s", code, stderr.String())
	}
}
