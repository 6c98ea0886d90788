package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

const pinnedConfig = `apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
kind: NetworkConfig
calicoVersion: %s
`

// TestValidateCalicoVersion: validate checks the pin as admission does, and with --running-version
// judges a pin to another line as a move, with the facts of the move as warnings.
func TestValidateCalicoVersion(t *testing.T) {
	dir := t.TempDir()
	file := func(name, pin string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, strings.Replace(pinnedConfig, "%s", pin, 1))
		return p
	}
	v31, v32, bad := file("v31.yaml", "v3.31"), file("v32.yaml", "v3.32"), file("bad.yaml", "v3.30")

	code, out, _ := runCLI(t, "validate", "-f", bad, "--strict")
	if code != 1 || out != "calicoVersion: Invalid value: \"v3.30\": not a Calico line calico-pilot deploys; accepted: v3.31, v3.32 (or the exact release: v3.31.6, v3.32.1)\n" {
		t.Errorf("unsupported pin: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "validate", "-f", v31, "--running-version", "v3.32")
	if code != 0 || !strings.HasPrefix(out, "calicoVersion: warning: v3.32 -> v3.31 is a Calico downgrade; ") ||
		!strings.Contains(out, "calicoVersion: warning: policies whose stored name does not start with their tier run in another tier under v3.31 [down.policy-tiers]\n") ||
		!strings.HasSuffix(out, "NetworkConfig: valid\n") {
		t.Errorf("downgrade: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "validate", "-f", v32, "--running-version", "v3.32")
	if code != 0 || out != "NetworkConfig: valid\n" {
		t.Errorf("same line: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "validate", "-f", v32, "--running-version", "v3.31", "-o", "json")
	if code != 0 || !strings.Contains(out, `"type": "CalicoMove"`) || !strings.Contains(out, "[up.anp-banp-not-enforced]") {
		t.Errorf("upgrade, JSON: exit %d\n%s", code, out)
	}
	code, _, errOut := runCLI(t, "validate", "-f", v32, "--running-version", "v3.29")
	if code != 2 || !strings.Contains(errOut, "--running-version: Calico \"v3.29\" is not supported") {
		t.Errorf("bad --running-version: exit %d %q", code, errOut)
	}
}
