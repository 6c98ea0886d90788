package controller

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNonPrivilegedCalicoNodeGate: the gate from the controller configuration reaches rendering:
// calico-node runs non-privileged (hostpath-init prepares the host paths), except with the eBPF
// dataplane, which needs privileges.
func TestNonPrivilegedCalicoNodeGate(t *testing.T) {
	tests := []struct {
		name           string
		gate           bool
		config         string
		wantHostpathIn bool
	}{
		{name: "gate off", gate: false, config: "overlay:\n  enabled: true\n", wantHostpathIn: false},
		{name: "gate on", gate: true, config: "overlay:\n  enabled: true\n", wantHostpathIn: true},
		{name: "gate on with eBPF stays privileged", gate: true, config: "overlay:\n  enabled: false\nebpfDataplane:\n  enabled: true\n", wantHostpathIn: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t, nil)
			log := startController(t, e.ns, controllerSetup{gates: map[string]bool{"NonPrivilegedCalicoNode": tt.gate}})
			e.createNetwork(providerConfig(tt.config))
			e.waitForOperation(log, nil, "Create", "Succeeded")
			raw, err := json.Marshal(e.manifest()["DaemonSet/calico-node"])
			if err != nil {
				t.Fatal(err)
			}
			ds := string(raw)
			if got := strings.Contains(ds, `"name":"hostpath-init"`); got != tt.wantHostpathIn {
				t.Errorf("hostpath-init init container present = %v, want %v", got, tt.wantHostpathIn)
			}
			if got := strings.Contains(ds, `"runAsUser":999`); got != tt.wantHostpathIn {
				t.Errorf("calico-node runAsUser 999 = %v, want %v", got, tt.wantHostpathIn)
			}
		})
	}
}
