package features

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNames(t *testing.T) {
	want := []string{"NonPrivilegedCalicoNode", "SeamlessOverlaySwitch"}
	if diff := cmp.Diff(want, Names()); diff != "" {
		t.Errorf("Names() mismatch (-want +got):\n%s", diff)
	}
}

func TestFromMap(t *testing.T) {
	tests := []struct {
		name            string
		gates           map[string]bool
		wantNonPriv     bool
		wantSeamless    bool
		wantErrContains string
	}{
		{name: "nil map keeps defaults (all off)"},
		{name: "enable NonPrivilegedCalicoNode", gates: map[string]bool{"NonPrivilegedCalicoNode": true}, wantNonPriv: true},
		{name: "enable SeamlessOverlaySwitch", gates: map[string]bool{"SeamlessOverlaySwitch": true}, wantSeamless: true},
		{name: "explicit false", gates: map[string]bool{"SeamlessOverlaySwitch": false, "NonPrivilegedCalicoNode": false}},
		{name: "unknown gate", gates: map[string]bool{"SeamlessOverlaySwtich": true}, wantErrContains: "unrecognized feature gate: SeamlessOverlaySwtich"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gate, err := FromMap(tt.gates)
			if tt.wantErrContains != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErrContains) {
					t.Fatalf("FromMap() error = %v, want one containing %q", err, tt.wantErrContains)
				}
				return
			}
			if err != nil {
				t.Fatalf("FromMap() unexpected error: %v", err)
			}
			if got := gate.Enabled("NonPrivilegedCalicoNode"); got != tt.wantNonPriv {
				t.Errorf("NonPrivilegedCalicoNode = %v, want %v", got, tt.wantNonPriv)
			}
			if got := gate.Enabled("SeamlessOverlaySwitch"); got != tt.wantSeamless {
				t.Errorf("SeamlessOverlaySwitch = %v, want %v", got, tt.wantSeamless)
			}
		})
	}
}

// TestNewIsIndependent proves there is no shared state: setting one gate does not change another.
func TestNewIsIndependent(t *testing.T) {
	a, err := New()
	if err != nil {
		t.Fatal(err)
	}
	b, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SetFromMap(map[string]bool{"SeamlessOverlaySwitch": true}); err != nil {
		t.Fatal(err)
	}
	if !a.Enabled("SeamlessOverlaySwitch") {
		t.Errorf("a: SeamlessOverlaySwitch not enabled after SetFromMap")
	}
	if b.Enabled("SeamlessOverlaySwitch") {
		t.Errorf("b: SeamlessOverlaySwitch enabled although only a was set")
	}
}
