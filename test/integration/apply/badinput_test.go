package apply

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestApplyRefusesFileThatContradictsCluster: a pod network and a kube-proxy mode the cluster
// states otherwise are errors at the file's paths naming both values and where the cluster says
// so; nothing is written.
func TestApplyRefusesFileThatContradictsCluster(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	ctx := context.Background()
	file := minimalFile + `cluster:
  kubernetesVersion: 1.34.3
  podCIDR: 10.200.0.0/16
  kubeProxy:
    mode: IPTables
`
	file = strings.Replace(file, "cluster:\n  kubernetesVersion: 1.34.3\n", "", 1)
	code, out, errOut := cl.apply(ctx, file)
	for _, want := range []string{
		`cluster.podCIDR: Invalid value: "10.200.0.0/16": the cluster says 10.244.0.0/16 (kube-system/kubeadm-config networking.podSubnet): the file contradicts the cluster; correct the file or leave the field out`,
		`cluster.podCIDR: Invalid value: "10.200.0.0/16": Node cp-1 has spec.podCIDRs 10.244.0.0/24, outside the pod network`,
		`cluster.kubeProxy.mode: Invalid value: "IPTables": the cluster says IPVS (kube-system/kube-proxy config.conf mode)`,
	} {
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("exit %d, stderr lacks %q:\n%s\nstdout:\n%s", code, want, errOut, out)
		}
	}
	var cm corev1.ConfigMap
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-pilot-state"}, &cm); err == nil {
		t.Error("a refused apply wrote its state")
	}
}

// TestApplyKubeProxyRuleSpeaksOfTheFile: on a cluster without the kube-system/kube-proxy ConfigMap
// (kube-proxy is off) a NetworkConfig without the eBPF dataplane is refused at the file's paths, in
// the error's field and in its text; with eBPF on it is accepted.
func TestApplyKubeProxyRuleSpeaksOfTheFile(t *testing.T) {
	cl := newCluster(t)
	ctx := context.Background()
	file := strings.Replace(minimalFile, "kubernetesVersion: 1.34.3\n", "kubernetesVersion: 1.34.3\n  podCIDR: 10.244.0.0/16\n", 1)
	want := "cluster.kubeProxy.enabled: Forbidden: Disabling kube-proxy is forbidden in conjunction with calico without running in ebpf dataplane; " +
		"set networkConfig.ebpfDataplane.enabled: true or enable kube-proxy\n"
	for _, tc := range []struct{ name, ebpf string }{{"no eBPF setting", ""}, {"eBPF off", "  ebpfDataplane:\n    enabled: false\n"}} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := cl.apply(ctx, file+tc.ebpf, "--dry-run")
			if code != 1 || errOut != want {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 1, stderr:\n%s\nstdout:\n%s", code, errOut, want, out)
			}
		})
	}
	t.Run("eBPF on", func(t *testing.T) {
		if code, out, errOut := cl.apply(ctx, file+"  ebpfDataplane:\n    enabled: true\n", "--dry-run"); code != 0 {
			t.Errorf("exit %d, stderr:\n%s\nstdout:\n%s", code, errOut, out)
		}
	})
}

// TestApplyReadsABareNetworkConfig: a file that is a NetworkConfig of its own is read as a Cluster
// with that networkConfig and no facts, and says so; a fact the cluster does not tell (envtest's
// API server says 0.0.0) is an error that says how to state it.
func TestApplyReadsABareNetworkConfig(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	code, out, errOut := cl.apply(context.Background(), "apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\nkind: NetworkConfig\nbackend: bird\n", "--dry-run")
	wantOut := "note: " // the file's name is the helper's temporary one
	wantNote := " is a bare NetworkConfig: read as a Cluster with that networkConfig and no facts (every fact is read from the cluster)\n"
	wantErr := "cluster.kubernetesVersion: Required value: the API server does not tell its version (a development build says 0.0.0): state it " +
		"(the file is a bare NetworkConfig, which states no facts: to state cluster.kubernetesVersion, write a Cluster file with the NetworkConfig under networkConfig, docs/standalone.md)\n"
	if code != 1 || !strings.HasPrefix(out, wantOut) || !strings.Contains(out, wantNote) || errOut != wantErr {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 1, the note %q and stderr:\n%s", code, out, errOut, wantNote, wantErr)
	}
}

// TestApplyRefusesUnsupportedKubernetesInTheClustersWords: a Kubernetes version no carried release
// supports, and an asked release whose line does not support the cluster's version, are refused in
// a plain cluster's words (no shoot, no owner's pin, no providerConfig): the cluster's version and
// where it came from, the lines carried and their ranges, what to do. Nothing is written.
func TestApplyRefusesUnsupportedKubernetesInTheClustersWords(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	ctx := context.Background()
	lines := "the Calico lines this calico-pilot carries: v3.31 (v3.31.7) supports Kubernetes 1.32-1.35, v3.32 (v3.32.1) supports Kubernetes 1.34-1.36. "
	for _, tc := range []struct {
		name, version string
		args          []string
		want          string
	}{
		{"no release supports it", "1.40.0", nil, "error: calico version: the cluster runs Kubernetes 1.40.0 (cluster.kubernetesVersion of the file), which no Calico release this calico-pilot carries supports; " +
			lines + "Run apply on a cluster whose Kubernetes version one of them supports, or use a calico-pilot that carries a Calico line for Kubernetes 1.40.0; nothing was changed\n"},
		{"no release supports it, one asked", "1.40.0", []string{"--calico-version", "v3.32"}, "error: calico version: the cluster runs Kubernetes 1.40.0 (cluster.kubernetesVersion of the file), which no Calico release this calico-pilot carries supports; " +
			lines + "Run apply on a cluster whose Kubernetes version one of them supports, or use a calico-pilot that carries a Calico line for Kubernetes 1.40.0; nothing was changed\n"},
		{"the asked line does not support it", "1.33.2", []string{"--calico-version", "v3.32"}, "error: calico version: the asked release (--calico-version or networkConfig.calicoVersion) is Calico v3.32.1, which supports Kubernetes 1.34-1.36; " +
			"the cluster runs Kubernetes 1.33.2 (cluster.kubernetesVersion of the file); " + lines + "Ask for a line that supports Kubernetes 1.33.2 (v3.31), or leave the release out; nothing was changed\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := cl.apply(ctx, strings.Replace(minimalFile, "1.34.3", tc.version, 1), tc.args...)
			if code != 1 || errOut != tc.want {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 1, stderr:\n%s\nstdout:\n%s", code, errOut, tc.want, out)
			}
			for _, word := range []string{"shoot", "owner", "providerConfig"} {
				if strings.Contains(out+errOut, word) {
					t.Errorf("apply speaks of %q:\n%s%s", word, out, errOut)
				}
			}
		})
	}
	var cm corev1.ConfigMap
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-pilot-state"}, &cm); err == nil {
		t.Error("a refused apply wrote its state")
	}
}
