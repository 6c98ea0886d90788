package webhook

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// fieldErr is the part of a field.Error the tests compare exactly.
type fieldErr struct {
	Type  field.ErrorType
	Field string
}

func fieldErrs(errs field.ErrorList) []fieldErr {
	var out []fieldErr
	for _, e := range errs {
		out = append(out, fieldErr{Type: e.Type, Field: e.Field})
	}
	return out
}

// warningPaths is the field path each warning starts with.
func warningPaths(warnings []string) []string {
	var out []string
	for _, w := range warnings {
		path, _, _ := strings.Cut(w, ": ")
		out = append(out, path)
	}
	return out
}

func TestTransition(t *testing.T) {
	birdOverlay := Networking{IPAM: "host-local", Backend: "bird", Overlay: true, Typha: true}
	running := Cluster{RunsNodes: true, MaxNodes: 10}

	with := func(n Networking, change func(*Networking)) Networking {
		change(&n)
		return n
	}

	tests := []struct {
		name         string
		old, updated Networking
		cluster      Cluster
		wantErrs     []fieldErr
		wantWarnings []string // field paths the warnings start with
		wantPhrases  []string // text every listed phrase must appear in, across all messages
	}{
		{
			name:    "nothing changes",
			old:     birdOverlay,
			updated: birdOverlay,
			cluster: running,
		},
		{
			name:        "ipam calico-ipam -> host-local with nodes is denied",
			old:         with(birdOverlay, func(n *Networking) { n.IPAM = "calico-ipam" }),
			updated:     birdOverlay,
			cluster:     running,
			wantErrs:    []fieldErr{{Type: field.ErrorTypeForbidden, Field: "spec.networking.providerConfig.ipam.type"}},
			wantPhrases: []string{"cannot change from calico-ipam to host-local while the shoot has nodes", "keep calico-ipam"},
		},
		{
			name:        "ipam host-local -> calico-ipam with nodes is denied",
			old:         birdOverlay,
			updated:     with(birdOverlay, func(n *Networking) { n.IPAM = "calico-ipam" }),
			cluster:     running,
			wantErrs:    []fieldErr{{Type: field.ErrorTypeForbidden, Field: "spec.networking.providerConfig.ipam.type"}},
			wantPhrases: []string{"cannot change from host-local to calico-ipam", "calico-ipam allocates blocks across the whole pod network"},
		},
		{
			name:    "ipam change without running nodes is allowed silently",
			old:     with(birdOverlay, func(n *Networking) { n.IPAM = "calico-ipam" }),
			updated: with(birdOverlay, func(n *Networking) { n.Overlay = false; n.Backend = "none" }),
			cluster: Cluster{RunsNodes: false, MaxNodes: 200},
		},
		{
			name:         "overlay on -> off warns with the backend change",
			old:          birdOverlay,
			updated:      with(birdOverlay, func(n *Networking) { n.Overlay = false; n.Backend = "none" }),
			cluster:      running,
			wantWarnings: []string{"spec.networking.providerConfig.overlay.enabled"},
			wantPhrases:  []string{"disabling the overlay", "(backend bird -> none)", "SeamlessOverlaySwitch"},
		},
		{
			name:         "overlay off -> on warns",
			old:          with(birdOverlay, func(n *Networking) { n.Overlay = false; n.Backend = "none" }),
			updated:      birdOverlay,
			cluster:      running,
			wantWarnings: []string{"spec.networking.providerConfig.overlay.enabled"},
			wantPhrases:  []string{"enabling the overlay", "(backend none -> bird)"},
		},
		{
			name:         "backend change with the overlay unchanged warns about the backend",
			old:          birdOverlay,
			updated:      with(birdOverlay, func(n *Networking) { n.Backend = "vxlan" }),
			cluster:      running,
			wantWarnings: []string{"spec.networking.providerConfig.backend"},
			wantPhrases:  []string{"backend changes from bird to vxlan"},
		},
		{
			name:         "eBPF on warns",
			old:          birdOverlay,
			updated:      with(birdOverlay, func(n *Networking) { n.EBPF = true }),
			cluster:      running,
			wantWarnings: []string{"spec.networking.providerConfig.ebpfDataplane.enabled"},
			wantPhrases:  []string{"switching the data plane to eBPF"},
		},
		{
			name:         "eBPF off warns",
			old:          with(birdOverlay, func(n *Networking) { n.EBPF = true }),
			updated:      birdOverlay,
			cluster:      running,
			wantWarnings: []string{"spec.networking.providerConfig.ebpfDataplane.enabled"},
			wantPhrases:  []string{"switching the data plane to iptables/nftables"},
		},
		{
			name:         "typha off on a large shoot warns",
			old:          birdOverlay,
			updated:      with(birdOverlay, func(n *Networking) { n.Typha = false }),
			cluster:      Cluster{RunsNodes: true, MaxNodes: 50},
			wantWarnings: []string{"spec.networking.providerConfig.typha.enabled"},
			wantPhrases:  []string{"can grow to 50 nodes"},
		},
		{
			name:    "typha off on a small shoot is silent",
			old:     birdOverlay,
			updated: with(birdOverlay, func(n *Networking) { n.Typha = false }),
			cluster: Cluster{RunsNodes: true, MaxNodes: 49},
		},
		{
			name:    "typha on on a large shoot is silent",
			old:     with(birdOverlay, func(n *Networking) { n.Typha = false }),
			updated: birdOverlay,
			cluster: Cluster{RunsNodes: true, MaxNodes: 500},
		},
		{
			name: "several changes at once: one denial and every warning",
			old:  birdOverlay,
			updated: with(birdOverlay, func(n *Networking) {
				n.IPAM = "calico-ipam"
				n.Overlay = false
				n.Backend = "none"
				n.Typha = false
				n.EBPF = true
			}),
			cluster:  Cluster{RunsNodes: true, MaxNodes: 120},
			wantErrs: []fieldErr{{Type: field.ErrorTypeForbidden, Field: "spec.networking.providerConfig.ipam.type"}},
			wantWarnings: []string{
				"spec.networking.providerConfig.overlay.enabled",
				"spec.networking.providerConfig.ebpfDataplane.enabled",
				"spec.networking.providerConfig.typha.enabled",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs, warnings := Transition(tt.old, tt.updated, tt.cluster, field.NewPath("spec", "networking", "providerConfig"))
			if diff := cmp.Diff(tt.wantErrs, fieldErrs(errs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWarnings, warningPaths(warnings)); diff != "" {
				t.Errorf("warning paths (-want +got):\n%s\nwarnings: %q", diff, warnings)
			}
			all := errs.ToAggregate()
			text := strings.Join(warnings, "\n")
			if all != nil {
				text += "\n" + all.Error()
			}
			for _, phrase := range tt.wantPhrases {
				if !strings.Contains(text, phrase) {
					t.Errorf("messages do not say %q:\n%s", phrase, text)
				}
			}
		})
	}
}
