package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

const pinnedConfig = `apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
kind: NetworkConfig
calicoVersion: %s
`

// The known issue of v3.32.1 as validate and admission print it.
const kubeControllersIssue = "known issue of Calico v3.32.1 (calico-kube-controllers): kube-controllers does nothing while any calico-node pod is unavailable " +
	"[kube-controllers-stalls-while-calico-node-unavailable]; what to do: docs/calico-lines.md"

// TestValidateCalicoVersion: validate checks the pin as admission does, shows the pinned release's known
// issues, and with --running-version judges a pin to another line as a move, with the facts of the move
// and the known issues the running release does not have as warnings.
func TestValidateCalicoVersion(t *testing.T) {
	dir := t.TempDir()
	file := func(name, pin string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, strings.Replace(pinnedConfig, "%s", pin, 1))
		return p
	}
	v31, v32, bad := file("v31.yaml", "v3.31"), file("v32.yaml", "v3.32"), file("bad.yaml", "v3.30")

	code, out, _ := runCLI(t, "validate", "-f", bad, "--strict")
	if code != 1 || !strings.HasPrefix(out, "calicoVersion: Invalid value: \"v3.30\": Calico \"v3.30\" is not supported; accepted: a line (") {
		t.Errorf("unsupported pin: exit %d\n%s", code, out)
	}
	for _, name := range append(calicoversion.Default().LineNames(), calicoversion.Default().ReleaseNames()...) {
		if !strings.Contains(out, name) {
			t.Errorf("unsupported pin: the error does not name %s:\n%s", name, out)
		}
	}
	code, out, _ = runCLI(t, "validate", "-f", v31, "--running-version", "v3.32")
	if code != 0 || !strings.HasPrefix(out, "calicoVersion: warning: v3.32.1 -> v3.31.7 is a Calico downgrade; ") ||
		!strings.Contains(out, "calicoVersion: warning: policies whose stored name does not start with their tier run in another tier under v3.31 [down.policy-tiers]\n") ||
		strings.Contains(out, "known issue") || !strings.HasSuffix(out, "NetworkConfig: valid\n") {
		t.Errorf("downgrade: exit %d\n%s", code, out)
	}
	// The running release has the pinned release's known issues already: nothing new to say.
	code, out, _ = runCLI(t, "validate", "-f", v32, "--running-version", "v3.32")
	if code != 0 || out != "NetworkConfig: valid\n" {
		t.Errorf("same line: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "validate", "-f", v32, "--running-version", "v3.31", "-o", "json")
	if code != 0 || !strings.Contains(out, `"type": "CalicoMove"`) || !strings.Contains(out, "[up.anp-banp-not-enforced]") ||
		!strings.Contains(out, `"type": "KnownIssue",`+"\n    \"detail\": \""+kubeControllersIssue+`",`) {
		t.Errorf("upgrade, JSON: exit %d\n%s", code, out)
	}
	// Without --running-version, every known issue of the pinned release.
	code, out, _ = runCLI(t, "validate", "-f", v32)
	if code != 0 || out != "calicoVersion: warning: "+kubeControllersIssue+"\nNetworkConfig: valid\n" {
		t.Errorf("pin with a known issue: exit %d\n%s", code, out)
	}
	code, _, errOut := runCLI(t, "validate", "-f", v32, "--running-version", "v3.29")
	if code != 2 || !strings.HasPrefix(errOut, "error: --running-version: Calico v3.29 is of line v3.29, which this calico-pilot does not carry; it carries a line (") {
		t.Errorf("bad --running-version: exit %d %q", code, errOut)
	}
	// A running release this calico-pilot no longer carries runs as the newest of its line, and
	// validate says so.
	code, out, _ = runCLI(t, "validate", "-f", v32, "--running-version", "v3.32.0")
	if code != 0 || out != "calicoVersion: warning: --running-version: Calico v3.32.0 is not carried by this calico-pilot (retired); the shoot moves to the newest release of its line, v3.32.1\nNetworkConfig: valid\n" {
		t.Errorf("retired --running-version: exit %d\n%s", code, out)
	}
}

// TestValidateCalicoVersionKnownIssuesPerRelease: a pin to any release or line shows exactly the known
// issues of the release it names, as the catalogue lists them.
func TestValidateCalicoVersionKnownIssuesPerRelease(t *testing.T) {
	dir := t.TempDir()
	cat := calicoversion.Default()
	for _, pin := range append(cat.LineNames(), cat.ReleaseNames()...) {
		r, err := cat.Resolve(pin)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, pin+".yaml")
		writeFile(t, p, strings.Replace(pinnedConfig, "%s", pin, 1))
		code, out, _ := runCLI(t, "validate", "-f", p)
		if code != 0 || strings.Count(out, ": warning: known issue of Calico "+r.Name()+" (") != len(r.KnownIssues()) || strings.Count(out, "warning") != len(r.KnownIssues()) {
			t.Errorf("pin %s (%s, %d known issues): exit %d\n%s", pin, r, len(r.KnownIssues()), code, out)
		}
		for _, k := range r.KnownIssues() {
			if !strings.Contains(out, k.Title+" ["+k.ID+"]") {
				t.Errorf("pin %s: no warning of %s:\n%s", pin, k.ID, out)
			}
		}
	}
}

// TestValidateCalicoVersionKubernetes: a Shoot whose pin's line does not support its Kubernetes
// version gets the calicoVersion.kubernetes rule's text: a warning for an existing Shoot, an error
// with --strict (admission refuses a new Shoot or a changed pin with it).
func TestValidateCalicoVersionKubernetes(t *testing.T) {
	data, err := os.ReadFile("../../examples/shoot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	shoot := strings.Replace(strings.Replace(string(data), "version: 1.32.0", "version: 1.33.4", 1),
		"      kind: NetworkConfig\n", "      kind: NetworkConfig\n      calicoVersion: v3.32\n", 1)
	if !strings.Contains(shoot, "calicoVersion: v3.32") || !strings.Contains(shoot, "version: 1.33.4") {
		t.Fatal("test input was not changed as intended")
	}
	path := writeTemp(t, "shoot.yaml", shoot)
	const rule = "spec.networking.providerConfig.calicoVersion: Invalid value: \"v3.32\": Calico v3.32.1 supports Kubernetes 1.34-1.36, the shoot runs 1.33.4 (spec.kubernetes.version); pin v3.31, or remove the pin"
	code, out, _ := runCLI(t, "validate", "-f", path, "--strict")
	if code != 1 || !strings.Contains(out, rule+"\n") {
		t.Errorf("--strict: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "validate", "-f", path)
	if code != 0 || !strings.Contains(out, "spec.networking.providerConfig.calicoVersion: warning: Invalid value: \"v3.32\": Calico v3.32.1 supports Kubernetes 1.34-1.36, the shoot runs 1.33.4 (spec.kubernetes.version); pin v3.31, or remove the pin; ") ||
		!strings.Contains(out, "spec.networking.providerConfig.calicoVersion: warning: "+kubeControllersIssue+"\n") {
		t.Errorf("existing Shoot: exit %d\n%s", code, out)
	}
}

// TestValidatePinAgainstTheImageVector (issue 35): with $IMAGEVECTOR_OVERWRITE naming a landscape's
// override that mirrors only v3.31.6, a Shoot pinned to v3.32 is invalid with the image vector entry
// to add, for the Shoot's Kubernetes version; a line pin v3.31 is valid (its mirrored release);
// without the override the same Shoot is valid.
func TestValidatePinAgainstTheImageVector(t *testing.T) {
	dir := t.TempDir()
	override := filepath.Join(dir, "images.yaml")
	writeFile(t, override, "images:\n- name: calico-node\n  repository: example.org/mirror/calico-node\n  tag: v3.31.6\n"+
		"- name: calico-node\n  repository: example.org/mirror134/calico-node\n  tag: v3.31.6\n  targetVersion: \">= 1.34\"\n")
	shoot := func(name, pin string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, `apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata: {name: s, namespace: garden-dev}
spec:
  kubernetes: {version: 1.34.2}
  provider:
    type: aws
    workers:
    - {name: w, machine: {type: m5.large}, minimum: 1, maximum: 2}
  networking:
    type: calico
    nodes: 10.250.0.0/16
    providerConfig:
      apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
      kind: NetworkConfig
      calicoVersion: `+pin+"\n")
		return p
	}
	v32, v31 := shoot("v32.yaml", "v3.32"), shoot("v31.yaml", "v3.31")
	t.Setenv("IMAGEVECTOR_OVERWRITE", override)
	code, out, _ := runCLI(t, "validate", "-f", v32)
	want := `spec.networking.providerConfig.calicoVersion: Invalid value: "v3.32": Calico v3.32.1's images are not in the image vector for Kubernetes 1.34.2: ` +
		"calico-node is example.org/mirror134/calico-node:v3.31.6 (of release v3.31.6); " +
		`add the image vector entry {name: calico-node, version: v3.32.1, repository: example.org/mirror134/calico-node, tag: v3.32.1, targetVersion: ">= 1.34"}` + "\n"
	if code != 1 || !strings.Contains(out, "\n"+want) {
		t.Errorf("pin to v3.32 on the mirror: exit %d\n%s\nwant the line\n%s", code, out, want)
	}
	if code, out, _ := runCLI(t, "validate", "-f", v31); code != 0 || !strings.HasSuffix(out, "valid\n") {
		t.Errorf("pin to v3.31 on the mirror: exit %d\n%s", code, out)
	}
	os.Unsetenv("IMAGEVECTOR_OVERWRITE")
	if code, out, _ := runCLI(t, "validate", "-f", v32); code != 0 {
		t.Errorf("pin to v3.32 without an override: exit %d\n%s", code, out)
	}
}
