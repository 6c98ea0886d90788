package cmd

import (
	"os"
	"strings"
	"testing"
)

// render reads its inputs as validate does and refuses what it cannot render faithfully (issue 15:
// it rendered the first of several Shoots, reported broken YAML as exit 1 at <document>, and
// accepted a Network of another type, a Cluster of another kind and one stdin for both).
func TestRenderInputs(t *testing.T) {
	shoot, err := os.ReadFile("../../examples/shoot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	twoShoots := writeTemp(t, "two.yaml", string(shoot)+"\n---\n"+string(shoot))
	broken := writeTemp(t, "broken.yaml", "apiVersion: core.gardener.cloud/v1beta1\nkind: Shoot\nspec:\n  networking: [\n")
	network, err := os.ReadFile(renderInputs + "network.yaml")
	if err != nil {
		t.Fatal(err)
	}
	otherType := writeTemp(t, "network-cilium.yaml", strings.Replace(string(network), "type: calico", "type: cilium", 1))
	notCluster := writeTemp(t, "not-cluster.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")

	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{"several Shoots", []string{"--shoot", twoShoots}, ExitUsage,
			"error: --shoot " + twoShoots + ": 2 YAML documents; render takes one Shoot (validate takes many)\n"},
		{"broken YAML names file and line", []string{"--shoot", broken}, ExitUsage,
			"error: --shoot " + broken + ": document 1 is not valid YAML: yaml: line 4: did not find expected node content\n"},
		{"Network of another type", []string{"--network", otherType, "--cluster", renderInputs + "cluster.yaml"}, ExitFindings,
			"spec.type: Unsupported value: \"cilium\": supported values: \"calico\"\n"},
		{"Cluster of another kind", []string{"--network", renderInputs + "network.yaml", "--cluster", notCluster}, ExitFindings,
			"kind: Invalid value: \"v1/ConfigMap\": --cluster must be an extensions.gardener.cloud/v1alpha1 Cluster\n"},
		{"one stdin for both", []string{"--network", "-", "--cluster", "-"}, ExitUsage,
			"error: --network and --cluster cannot both read stdin (\"-\"): give at least one of them as a file\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runRender(t, tt.args...)
			if code != tt.wantCode || stderr != tt.wantStderr || stdout != "" {
				t.Fatalf("exit %d, stderr %q, stdout %d bytes; want exit %d, stderr %q, no output", code, stderr, len(stdout), tt.wantCode, tt.wantStderr)
			}
		})
	}
}
