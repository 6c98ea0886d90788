package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// shootDoc is a Shoot of a `kubectl get shoots -A -o yaml` list with the given providerConfig body
// (indented under providerConfig).
func shootDoc(name, providerConfig string) string {
	pc := ""
	if providerConfig != "" {
		pc = "        providerConfig:\n          apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\n          kind: NetworkConfig\n" + providerConfig
	}
	return `  - apiVersion: core.gardener.cloud/v1beta1
    kind: Shoot
    metadata:
      name: ` + name + `
      namespace: garden-dev
    spec:
      kubernetes:
        version: 1.33.2
      networking:
        type: calico
        pods: 100.96.0.0/11
        nodes: 10.250.0.0/16
        services: 100.64.0.0/13
        ipFamilies: [IPv4]
` + pc + `      provider:
        type: aws
        workers:
        - name: pool-a
`
}

func TestSwapCheckShootFile(t *testing.T) {
	list := "apiVersion: v1\nkind: List\nitems:\n" +
		shootDoc("plain", "") +
		shootDoc("contradictory", "          ipam:\n            type: calico-ipam\n            cidr: usePodCidr\n") +
		shootDoc("deprecated", "          ipip: CrossSubnet\n") +
		shootDoc("broken", "          backend: calico\n")
	code, out, errOut := runCLIWith(context.Background(), strings.NewReader(list), "swap-check", "-f", "-")
	if code != ExitFindings {
		t.Errorf("exit code %d, want %d (one shoot would fail); stderr %s", code, ExitFindings, errOut)
	}
	note := "  note: from the Shoot alone: the deployed manifest is in the seed, run swap-check --kubeconfig <seed> for the object-level diff\n"
	// The shoots have backend bird: the ensurer's command is a named fix that rolls calico-node.
	fix := "  restarts: DaemonSet kube-system/calico-node\n" +
		"  fix ensurer-command: calico-node, backend bird or vxlan: the command and env of the network-unavailable-condition-ensurer sidecar (Calico v3.31 clears the node's NetworkUnavailable condition only in -complete-startup (run with DATASTORE_TYPE and FELIX_HEALTHENABLED, without -startup's IP and pool env); the reference's `calico-node -startup` leaves it set)\n"
	// From a Shoot file the running line is unknown; the line calico-pilot would give it is shown.
	line := "  calico: calico-pilot would give it v3.31 (v3.31.6)\n"
	want := "garden-dev/plain: reconciles, but the data plane changes\n  compatibility: Reference\n" + line + fix + note +
		"\ngarden-dev/contradictory: reconciles, but the data plane changes\n  compatibility: Reference\n" + line +
		`  contradictory: spec.networking.providerConfig.ipam.cidr "usePodCidr": contradicts spec.networking.providerConfig.ipam.type: "calico-ipam": the cidr is the host-local subnet; calico-ipam allocates from the IP pools, remove one of the two; the cidr is not used (calico-ipam allocates from the IP pools), as the reference did` + "\n" + fix + note +
		"\ngarden-dev/deprecated: reconciles, but the data plane changes\n  compatibility: Reference\n" + line +
		`  ignored: spec.networking.providerConfig.ipip "CrossSubnet": the reference ignored the deprecated ipip; mode Always is deployed, as the reference did; the ControllerConfiguration's compatibility.honourIgnoredFields honours it` + "\n" + fix + note +
		"\ngarden-dev/broken: would fail to reconcile\n" +
		`  error: spec.networking.providerConfig.backend: Unsupported value: "calico": supported values: "bird", "none", "vxlan"` + "\n"
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func TestSwapCheckUsage(t *testing.T) {
	runCLICases(t, []cliCase{
		{name: "no input", args: []string{"swap-check"}, wantCode: ExitUsage, wantErrOut: "error: one of -f/--filename and --kubeconfig is required\n"},
		{name: "both inputs", args: []string{"swap-check", "-f", "x", "--kubeconfig", "y"}, wantCode: ExitUsage, wantErrOut: "error: -f/--filename and --kubeconfig exclude each other\n"},
		{name: "bad output", args: []string{"swap-check", "-f", "-", "-o", "yaml"}, wantCode: ExitUsage, wantErrOut: "error: --output \"yaml\" is not supported, use text or json\n"},
		{name: "not YAML", args: []string{"swap-check", "-f", "-"}, stdin: "a: [b\n", wantCode: ExitUsage, wantErrOut: "error: stdin: document 1 is not valid YAML: yaml: line 1: did not find expected ',' or ']'\n"},
	})
}
