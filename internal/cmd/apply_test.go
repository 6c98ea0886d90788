package cmd

import (
	"strings"
	"testing"
)

const applyClusterFile = `apiVersion: standalone.calico-pilot.dev/v1alpha1
kind: Cluster
cluster:
  podCIDR: 10.244.0.0/16
`

// TestApplyInputErrors: usage and unreachable clusters exit 2 with what to do; an invalid file
// exits 1 with field paths, before the cluster is contacted.
func TestApplyInputErrors(t *testing.T) {
	kc := writeTemp(t, "kubeconfig", unreachableKubeconfig)
	file := writeTemp(t, "cluster.yaml", applyClusterFile)
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no kubeconfig", []string{"apply", "-f", file}, 2, "error: --kubeconfig is required: the cluster to apply to\n"},
		{"no file", []string{"apply", "--kubeconfig", kc}, 2, "error: -f is required: the cluster file (docs/standalone.md)\n"},
		{"unknown release", []string{"apply", "--kubeconfig", kc, "-f", file, "--calico-version", "v2.0"}, 2, "error: --calico-version: "},
		{"unreachable", []string{"apply", "--kubeconfig", kc, "-f", file}, 2, "error: the cluster of --kubeconfig " + kc + " does not answer (https://127.0.0.1:1): "},
		{"invalid file", []string{"apply", "--kubeconfig", kc, "-f", writeTemp(t, "bad.yaml", applyClusterFile+"  nodeCidr: x\n")}, 1,
			"cluster.nodeCidr: Forbidden: unknown field \"nodeCidr\" (did you mean \"nodeCIDR\"?); known fields of cluster: ipFamilies, kubeProxy, kubernetesVersion, nodeCIDR, podCIDR, serviceCIDR\n"},
	}
	empty := writeTemp(t, "empty.yaml", "")
	cases = append(cases, struct {
		name   string
		args   []string
		code   int
		stderr string
	}{"empty file", []string{"apply", "--kubeconfig", kc, "-f", empty}, 1,
		empty + ": Required value: the file is empty: a cluster file is an object with apiVersion standalone.calico-pilot.dev/v1alpha1 and kind Cluster " +
			"(networkConfig and cluster facts, docs/standalone.md), or a bare NetworkConfig\n"})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.args...)
			if code != tc.code || !strings.HasPrefix(stderr, tc.stderr) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d, stderr starting with:\n%s", code, stderr, tc.code, tc.stderr)
			}
		})
	}
}
