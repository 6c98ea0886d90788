package render

import "github.com/calico-pilot/calico-pilot/internal/values"

// TemplateDifference is one way calico-pilot's calico-node or typha pod template differs from the
// reference extension's in Reference compatibility mode: a fix a shoot needs. Everything else in those
// templates equals the reference's, so taking a shoot over rolls calico-node or typha only for these.
type TemplateDifference struct {
	// ID names the difference (swap-check output, docs/compatibility.md).
	ID string `json:"id"`
	// Where says which shoots and which part of the template.
	Where string `json:"where"`
	// Why is the reason.
	Why string `json:"why"`
}

// ReferenceTemplateDifferences are the named differences of the Reference-mode pod templates from the
// reference's. render's roll-count test (reference_templates_test.go) allows exactly these.
var ReferenceTemplateDifferences = []TemplateDifference{
	{
		ID:    "ensurer-command",
		Where: "calico-node, backend bird or vxlan: the command and env of the network-unavailable-condition-ensurer sidecar",
		Why:   "Calico v3.31 clears the node's NetworkUnavailable condition only in -complete-startup (run with DATASTORE_TYPE and FELIX_HEALTHENABLED, without -startup's IP and pool env); the reference's `calico-node -startup` leaves it set",
	},
	{
		ID:    "bpf-data-iface-pattern",
		Where: "calico-node, eBPF on Azure: env FELIX_BPFDATAIFACEPATTERN",
		Why:   "without it Felix attaches to Azure's accelerated-networking interfaces and breaks the node's traffic (networking-calico's end-user guide, known limitations of the eBPF dataplane)",
	},
}

// ApplicableTemplateDifferences are the named differences that apply to a shoot rendered with o in
// Reference mode (none in Native mode, whose templates are calico-pilot's own).
func ApplicableTemplateDifferences(o *values.Options) []TemplateDifference {
	if !o.ReferenceTemplates {
		return nil
	}
	var out []TemplateDifference
	for _, d := range ReferenceTemplateDifferences {
		applies := false
		switch d.ID {
		case "ensurer-command":
			applies = o.NetworkUnavailableEnsurer
		case "bpf-data-iface-pattern":
			applies = o.BPFDataIfacePattern != ""
		}
		if applies {
			out = append(out, d)
		}
	}
	return out
}
