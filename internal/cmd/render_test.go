package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const renderInputs = "../render/testdata/inputs/"

type objectID struct{ Kind, Namespace, Name string }

func idsOfYAML(t *testing.T, stream string) []objectID {
	t.Helper()
	var ids []objectID
	for _, doc := range strings.Split("\n"+stream, "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var m struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name, Namespace string
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatalf("output is not YAML: %v", err)
		}
		ids = append(ids, objectID{m.Kind, m.Metadata.Namespace, m.Metadata.Name})
	}
	return ids
}

func TestRenderShootSeedExample(t *testing.T) {
	out, errOut, code := runRender(t, "--shoot", renderInputs+"shoot-seed-004.yaml", "--kube-apiserver-address", "192.0.2.34", "--crds=false")
	if code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, errOut)
	}
	ids := idsOfYAML(t, out)
	// typha is off in the example: none of its objects, the GlobalNetworkSet is there.
	want := map[objectID]bool{
		{"GlobalNetworkSet", "", "gardener-kube-apiserver"}: true,
		{"DaemonSet", "kube-system", "calico-node"}:         true,
		{"IPPool", "", "default-ipv4-ippool"}:               true,
		{"ConfigMap", "kube-system", "calico-config"}:       true,
	}
	for _, id := range ids {
		delete(want, id)
		if strings.Contains(id.Name, "typha") {
			t.Errorf("typha is disabled but %v was rendered", id)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing objects: %v", want)
	}
	if !sort.SliceIsSorted(ids, func(i, j int) bool {
		if ids[i].Kind != ids[j].Kind {
			return ids[i].Kind < ids[j].Kind
		}
		if ids[i].Namespace != ids[j].Namespace {
			return ids[i].Namespace < ids[j].Namespace
		}
		return ids[i].Name < ids[j].Name
	}) {
		t.Errorf("objects are not sorted by kind, namespace, name: %v", ids)
	}
	if !strings.Contains(out, "  nets:\n  - 192.0.2.34/32\n") {
		t.Errorf("GlobalNetworkSet nets missing in output")
	}
}

func TestRenderIncludesCRDs(t *testing.T) {
	out, errOut, code := runRender(t, "--shoot", renderInputs+"shoot-seed-004.yaml", "--kube-apiserver-address", "192.0.2.34")
	if code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, errOut)
	}
	n := 0
	for _, id := range idsOfYAML(t, out) {
		if id.Kind == "CustomResourceDefinition" {
			n++
		}
	}
	if n != 24 {
		t.Errorf("got %d CRDs, want 24", n)
	}
}

// TestRenderInvalidInput: nothing is written to stdout on error.
func TestRenderInvalidInput(t *testing.T) {
	runCLICases(t, []cliCase{
		{
			name:     "validation errors, exactly as validate prints them",
			args:     []string{"render", "--shoot", renderInputs + "shoot-invalid.yaml"},
			wantCode: 1,
			wantErrOut: `spec.networking.providerConfig.ipam.cidr: Invalid value: "usePodCidr": contradicts spec.networking.providerConfig.ipam.type: "calico-ipam": the cidr is the host-local subnet; calico-ipam allocates from the IP pools, remove one of the two
spec.networking.providerConfig.autoScaling.mode: Invalid value: "vpa": needs the shoot's VPA: set spec.kubernetes.verticalPodAutoscaler.enabled: true, or use "cluster-proportional" or "static"
`,
		},
		{
			name:     "GlobalNetworkSet enabled but no address given",
			args:     []string{"render", "--shoot", renderInputs + "shoot-seed-004.yaml"},
			wantCode: 2,
			wantErrOut: "error: " + renderInputs + "shoot-seed-004.yaml enables the gardener-kube-apiserver GlobalNetworkSet (spec.networking.providerConfig.kubeAPIServerGlobalNetworkSet.enabled), " +
				"whose addresses render cannot look up offline: give them with --kube-apiserver-address IP (repeatable), or set it to false\n",
		},
		{
			name:       "unknown feature gate",
			args:       []string{"render", "--shoot", renderInputs + "shoot-seed-004.yaml", "--feature-gates", "Bogus=true"},
			wantCode:   2,
			wantErrOut: "error: --feature-gates: setting feature gates: unrecognized feature gate: Bogus (known gates: NonPrivilegedCalicoNode, SeamlessOverlaySwitch)\n",
		},
		{
			name:       "address that is no IP",
			args:       []string{"render", "--shoot", renderInputs + "shoot-seed-004.yaml", "--kube-apiserver-address", "api.example.com"},
			wantCode:   2,
			wantErrOut: "error: --kube-apiserver-address \"api.example.com\": not an IP address (give IPv4 or IPv6 addresses, one per flag)\n",
		},
		{
			name:       "network without cluster",
			args:       []string{"render", "--network", renderInputs + "network.yaml"},
			wantCode:   2,
			wantErrOut: "error: --network and --cluster go together: give both\n",
		},
		{
			name:       "missing file",
			args:       []string{"render", "--shoot", renderInputs + "does-not-exist.yaml"},
			wantCode:   2,
			wantErrOut: "error: cannot read " + renderInputs + "does-not-exist.yaml: no such file or directory\n",
		},
		{
			name:       "unknown output format",
			args:       []string{"render", "--shoot", renderInputs + "shoot-seed-004.yaml", "-o", "toml"},
			wantCode:   2,
			wantErrOut: "error: --output \"toml\" is not supported, use yaml or json\n",
		},
	})
}

func TestRenderJSONAndOutputDir(t *testing.T) {
	args := []string{"--network", renderInputs + "network.yaml", "--cluster", renderInputs + "cluster.yaml", "--crds=false"}
	out, errOut, code := runRender(t, append(args, "-o", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var list struct {
		Kind  string            `json:"kind"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("-o json is not JSON: %v", err)
	}
	yamlOut, _, _ := runRender(t, args...)
	if got, want := len(list.Items), len(idsOfYAML(t, yamlOut)); list.Kind != "List" || got != want {
		t.Errorf("json list kind %q with %d items; want List with %d (as in YAML)", list.Kind, got, want)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(out)); err != nil {
		t.Fatal(err)
	}
	// The Network's overlay-off config and the embedded shoot's nftables kube-proxy both apply.
	for _, s := range []string{`"name":"no-snat-for-node-cidr"`, `"name":"FELIX_NFTABLESMODE","value":"Enabled"`, `"name":"bird-exporter"`} {
		if !strings.Contains(compact.String(), s) {
			t.Errorf("json output lacks %s", s)
		}
	}

	dir := t.TempDir()
	out, errOut, code = runRender(t, append(args, "--output-dir", dir)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(list.Items) {
		t.Errorf("%d files, want one per object (%d)", len(files), len(list.Items))
	}
	if _, err := os.Stat(filepath.Join(dir, "daemonset.apps_kube-system_calico-node.yaml")); err != nil {
		t.Errorf("calico-node file: %v", err)
	}
	if want := "wrote " + itoa(len(list.Items)) + " objects to " + dir + "\n"; out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestRenderControllerConfig: gates come from the ControllerConfiguration, and --feature-gates wins.
func TestRenderControllerConfig(t *testing.T) {
	base := []string{"--shoot", renderInputs + "shoot-seed-004.yaml", "--kube-apiserver-address", "192.0.2.34", "--crds=false",
		"--controller-config", renderInputs + "controller-config.yaml"}
	out, errOut, code := runRender(t, base...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "name: hostpath-init") {
		t.Error("NonPrivilegedCalicoNode from the controller configuration was not applied")
	}
	out, errOut, code = runRender(t, append(base, "--feature-gates", "NonPrivilegedCalicoNode=false")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "name: hostpath-init") {
		t.Error("--feature-gates NonPrivilegedCalicoNode=false did not override the controller configuration")
	}
}

func TestRenderFromStdin(t *testing.T) {
	data, err := os.ReadFile(renderInputs + "shoot-seed-004.yaml")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLIWith(context.Background(), bytes.NewReader(data), "render", "--shoot", "-", "--crds=false", "--kube-apiserver-address", "192.0.2.34")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	fromFile, _, _ := runRender(t, "--shoot", renderInputs+"shoot-seed-004.yaml", "--crds=false", "--kube-apiserver-address", "192.0.2.34")
	if out != fromFile {
		t.Error("rendering from stdin differs from rendering the file")
	}
}
