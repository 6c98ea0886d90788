package install

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// placeholder matches the bare tokens install-cni substitutes in the conflist template
// (__CNI_MTU__ is a number after substitution, so it stands unquoted in the JSON).
var (
	placeholder       = regexp.MustCompile(`__[A-Z0-9_]+__`)
	quotedPlaceholder = regexp.MustCompile(`"__[A-Z0-9_]+__"`)
)

// conflist is the part of a CNI conflist the IPAM is read from.
type conflist struct {
	Plugins []struct {
		Type string `json:"type"`
		IPAM struct {
			Type   string `json:"type"`
			Subnet string `json:"subnet"`
		} `json:"ipam"`
	} `json:"plugins"`
}

// parseIPAM reads the calico plugin's IPAM from a conflist template.
func parseIPAM(template string) (IPAM, error) {
	var cl conflist
	// A quoted placeholder stays a string; a bare one becomes 0 so that the template is JSON.
	quoted := quotedPlaceholder.ReplaceAllString(template, `"placeholder"`)
	if err := json.Unmarshal([]byte(placeholder.ReplaceAllString(quoted, "0")), &cl); err != nil {
		return IPAM{}, fmt.Errorf("the CNI conflist template is not JSON: %w", err)
	}
	for _, p := range cl.Plugins {
		if p.Type == "calico" {
			return IPAM{Type: p.IPAM.Type, Subnet: p.IPAM.Subnet}, nil
		}
	}
	return IPAM{}, fmt.Errorf("the CNI conflist template has no calico plugin")
}

// deriveIPAM reads the IPAM from calico-config's cni_network_config.
func (in *Install) deriveIPAM() {
	if in.Config == nil {
		return
	}
	key := in.Layout.CNIConfigKey
	t, ok := in.Config.Data[key]
	if !ok {
		return
	}
	ipam, err := parseIPAM(t)
	src := fmt.Sprintf("%s/%s %s", in.Config.Namespace, in.Config.Name, key)
	if err != nil {
		in.IPAM = IPAM{Source: src + ": " + err.Error()}
		return
	}
	ipam.Source = src
	in.IPAM = ipam
}

// envValue is the value calico-node's env var name has: a literal, or the calico-config key it
// names. ok is false when calico-node does not set it (or it comes from elsewhere).
func (in *Install) envValue(name string) (value, source string, ok bool) {
	w := in.Workload(calicoversion.Node)
	if w == nil {
		return "", "", false
	}
	v, set := w.Env[name]
	if !set {
		return "", "", false
	}
	if rest, isCM := strings.CutPrefix(v, "configmap "); isCM {
		cmName, key, _ := strings.Cut(rest, " ")
		if in.Config == nil || cmName != in.Config.Name {
			return "", "", false
		}
		val, has := in.Config.Data[key]
		return val, fmt.Sprintf("%s/%s %s", in.Config.Namespace, in.Config.Name, key), has
	}
	if strings.HasPrefix(v, "field ") || v == "(from the pod)" {
		return "", "", false
	}
	return v, fmt.Sprintf("%s %s/%s env %s", w.Kind, w.Namespace, w.Name, name), true
}

// deriveBackend reads calico-node's CALICO_NETWORKING_BACKEND (bird when unset: calico-node's own
// default) and the veth MTU.
func (in *Install) deriveBackend() {
	if w := in.Workload(calicoversion.Node); w == nil {
		return
	}
	if v, src, ok := in.envValue("CALICO_NETWORKING_BACKEND"); ok {
		in.Backend, in.BackendSource = v, src
	} else {
		in.Backend, in.BackendSource = "bird", "calico-node's default (CALICO_NETWORKING_BACKEND unset)"
	}
	if in.Config != nil {
		if v, ok := in.Config.Data["veth_mtu"]; ok {
			in.VethMTU = v
		}
	}
}

// deriveTypha reads whether calico-node uses Typha (FELIX_TYPHAK8SSERVICENAME, "none" or unset:
// no), its replicas and whether Felix speaks TLS to it.
func (in *Install) deriveTypha() {
	if w := in.Workload(calicoversion.Node); w == nil {
		return
	}
	v, src, ok := in.envValue("FELIX_TYPHAK8SSERVICENAME")
	in.Typha.Known = true
	switch {
	case ok:
		in.Typha.Enabled, in.Typha.Source = v != "" && v != "none", src
	default:
		in.Typha.Source = "calico-node sets no FELIX_TYPHAK8SSERVICENAME"
	}
	if t := in.Workload(calicoversion.Typha); t != nil {
		in.Typha.Replicas = t.Replicas
	}
	_, _, in.Typha.TLS = in.envValue("FELIX_TYPHACAFILE")
}
