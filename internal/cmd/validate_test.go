package cmd

import (
	"strings"
	"testing"
)

func TestValidateCommand(t *testing.T) {
	const examples = "../../examples/"
	tests := []cliCase{
		{
			name:  "a contradiction the reference accepted is a warning, exit 0",
			args:  []string{"validate", "-f", "-"},
			stdin: "apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\nkind: NetworkConfig\nipam:\n  type: calico-ipam\n  cidr: usePodCidr\n",
			wantOut: "ipam.cidr: warning: Invalid value: \"usePodCidr\": contradicts ipam.type: \"calico-ipam\": the cidr is the host-local subnet; calico-ipam allocates from the IP pools, remove one of the two; " +
				"an existing Shoot keeps working (deployed: the cidr is not used (calico-ipam allocates from the IP pools), as the reference did), a new one or a changed value is refused\n" +
				"NetworkConfig: valid\n",
		},
		{
			name:     "the same contradiction with --strict is an error, exit 1",
			args:     []string{"validate", "-f", "-", "--strict"},
			stdin:    "apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\nkind: NetworkConfig\nipam:\n  type: calico-ipam\n  cidr: usePodCidr\n",
			wantCode: 1,
			wantOut:  "ipam.cidr: Invalid value: \"usePodCidr\": contradicts ipam.type: \"calico-ipam\": the cidr is the host-local subnet; calico-ipam allocates from the IP pools, remove one of the two\n",
		},
		{
			name:  "a warning in JSON is marked and says what is deployed",
			args:  []string{"validate", "-f", "-", "-o", "json"},
			stdin: "apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\nkind: NetworkConfig\noverlay:\n  enabled: false\nbackend: bird\n",
			wantOut: `[
  {
    "field": "backend",
    "type": "FieldValueInvalid",
    "badValue": "bird",
    "detail": "contradicts overlay.enabled: false, which implies backend \"none\"; remove backend",
    "warning": true,
    "action": "the backend the overlay setting implies is deployed, as the reference did"
  }
]
`,
		},
		{
			name:    "seed NetworkConfig example is valid",
			args:    []string{"validate", "-f", examples + "networkconfig.yaml"},
			wantOut: "NetworkConfig: valid\n",
		},
		{
			name:    "seed Shoot example is valid",
			args:    []string{"validate", "-f", examples + "shoot.yaml"},
			wantOut: "Shoot garden-dev/johndoe-azure: valid\n",
		},
		{
			name:    "valid in JSON is an empty array",
			args:    []string{"validate", "-f", examples + "shoot.yaml", "-o", "json"},
			wantOut: "[]\n",
		},
		{
			name:    "seed eBPF example on a dual-stack shoot",
			args:    []string{"validate", "-f", examples + "ebpf-networkconfig.yaml", "--ip-families", "IPv4,IPv6"},
			wantOut: "NetworkConfig: valid\n",
		},
		{
			name:     "misspelled field",
			args:     []string{"validate", "-f", examples + "invalid/networkconfig-typo.yaml"},
			wantCode: 1,
			wantOut:  "ipam.typah: Forbidden: unknown field \"typah\" (did you mean \"type\"?); known fields of ipam: cidr, type\n",
		},
		{
			name:     "invalid NetworkConfig, one line per error",
			args:     []string{"validate", "-f", examples + "invalid/networkconfig-invalid.yaml", "--strict"},
			wantCode: 1,
			wantOut: `ipam.type: Unsupported value: "dhcp": supported values: "calico-ipam", "host-local"
ipv4.autoDetectionMethod: Invalid value: "cidr=10.250.0.0": parameter "10.250.0.0" of option cidr is not a valid CIDR
vethMTU: Invalid value: "": MTU cannot be empty; use "0" to auto-detect
autoScaling.resources.node[cpu]: Invalid value: "0": must be specified and cannot be zero
ipv4.mode: Invalid value: "Never": contradicts overlay.enabled: true; an overlay encapsulates, use "Always" or "CrossSubnet" or remove the mode
`,
		},
		{
			name:     "invalid Shoot as JSON",
			args:     []string{"validate", "-f", examples + "invalid/shoot-invalid.yaml", "-o", "json", "--strict"},
			wantCode: 1,
			wantOut: `[
  {
    "field": "spec.networking.pods",
    "type": "FieldValueInvalid",
    "badValue": "100.96.0.0",
    "detail": "pods is not a valid CIDR"
  },
  {
    "field": "spec.networking.providerConfig.ipv6.pool",
    "type": "FieldValueNotSupported",
    "badValue": "ipip",
    "detail": "supported values: \"vxlan\""
  },
  {
    "field": "spec.kubernetes.kubeProxy.enabled",
    "type": "FieldValueForbidden",
    "detail": "Disabling kube-proxy is forbidden in conjunction with calico without running in ebpf dataplane; set spec.networking.providerConfig.ebpfDataplane.enabled: true or enable kube-proxy"
  },
  {
    "field": "spec.networking.providerConfig.autoScaling.mode",
    "type": "FieldValueInvalid",
    "badValue": "vpa",
    "detail": "needs the shoot's VPA: set spec.kubernetes.verticalPodAutoscaler.enabled: true, or use \"cluster-proportional\" or \"static\""
  }
]
`,
		},
		{
			name:     "several documents are prefixed with their index",
			args:     []string{"validate", "-f", examples + "invalid/multi.yaml", "--strict"},
			wantCode: 1,
			wantOut: `documents[0] (NetworkConfig): valid
documents[1].vxlan.enabled: Invalid value: true: contradicts overlay.enabled: false; VXLAN is an overlay encapsulation
documents[2].kind: Unsupported value: "ConfigMap": supported values: "NetworkConfig", "Shoot"
`,
		},
		{
			name:     "empty string bad value is kept in JSON",
			args:     []string{"validate", "-f", "-", "-o", "json"},
			stdin:    "apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\nkind: NetworkConfig\nvethMTU: \"\"\n",
			wantCode: 1,
			wantOut: `[
  {
    "field": "vethMTU",
    "type": "FieldValueInvalid",
    "badValue": "",
    "detail": "MTU cannot be empty; use \"0\" to auto-detect"
  }
]
`,
		},
		{
			name:     "stdin with IPv6 families",
			args:     []string{"validate", "-f", "-", "--ip-families", "IPv6"},
			stdin:    "apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\nkind: NetworkConfig\nipv4:\n  mode: Never\n",
			wantCode: 1,
			wantOut:  "ipv4: Forbidden: IPv4 configuration must not be specified if the shoot does not use IPv4 networking (this is an IPv6 single-stack shoot)\n",
		},
		{
			name:     "wrong apiVersion and missing kind",
			args:     []string{"validate", "-f", "-"},
			stdin:    "---\napiVersion: calico.networking.extensions.gardener.cloud/v1beta1\nkind: NetworkConfig\n---\nfoo: bar\n",
			wantCode: 1,
			wantOut: `documents[0].apiVersion: Unsupported value: "calico.networking.extensions.gardener.cloud/v1beta1": supported values: "calico.networking.extensions.gardener.cloud/v1alpha1"
documents[1].kind: Required value: must be "NetworkConfig" or "Shoot"
`,
		},
		{
			name:    "workerless Shoot says why it is not checked",
			args:    []string{"validate", "-f", "-"},
			stdin:   "apiVersion: core.gardener.cloud/v1beta1\nkind: Shoot\nmetadata: {name: wl, namespace: garden-dev}\nspec:\n  provider: {type: aws}\n",
			wantOut: "Shoot garden-dev/wl: valid (workerless, so it has no Calico networking to check)\n",
		},
		{
			name: "a List as kubectl prints it: items validated one by one",
			args: []string{"validate", "-f", "-"},
			stdin: `apiVersion: v1
kind: List
items:
- apiVersion: core.gardener.cloud/v1beta1
  kind: Shoot
  metadata: {name: ok, namespace: garden-dev}
  spec:
    provider: {type: aws, workers: [{name: a}]}
    networking: {type: calico, nodes: 10.250.0.0/16}
- apiVersion: core.gardener.cloud/v1beta1
  kind: Shoot
  metadata: {name: bad, namespace: garden-dev}
  spec:
    provider: {type: aws, workers: [{name: a}]}
    networking:
      type: calico
      providerConfig: {apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1, kind: NetworkConfig, vethMTU: "-5"}
- 42
`,
			wantCode: 1,
			wantOut: `items[1].spec.networking.providerConfig.vethMTU: Invalid value: "-5": MTU must be a positive integer, or "0" to auto-detect
items[2]: Invalid value: 42: must be an object with apiVersion and kind
`,
		},
		{
			name:    "a valid List",
			args:    []string{"validate", "-f", "-"},
			stdin:   "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1, kind: NetworkConfig}\n",
			wantOut: "List of 1 items: valid\n",
		},
		{
			name:     "a List without items",
			args:     []string{"validate", "-f", "-", "-o", "json"},
			stdin:    "apiVersion: v1\nkind: List\nitems: {a: 1}\n",
			wantCode: 1,
			wantOut:  "[\n  {\n    \"field\": \"items\",\n    \"type\": \"FieldValueTypeInvalid\",\n    \"badValue\": {\n      \"a\": 1\n    },\n    \"detail\": \"must be a list of Shoots or NetworkConfigs\"\n  }\n]\n",
		},
		{
			name:       "ip families with a List of Shoots",
			args:       []string{"validate", "-f", "-", "--ip-families", "IPv4"},
			stdin:      "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: core.gardener.cloud/v1beta1, kind: Shoot, metadata: {name: x}}\n",
			wantCode:   2,
			wantErrOut: "error: --ip-families applies to NetworkConfig documents only; Shoot x uses its spec.networking.ipFamilies\n",
		},
		{
			name:       "unparsable YAML",
			args:       []string{"validate", "-f", examples + "invalid/not-yaml.yaml"},
			wantCode:   2,
			wantErrOut: "error: " + examples + "invalid/not-yaml.yaml: document 1 is not valid YAML: yaml: line 3: did not find expected ',' or ']'\n",
		},
		{
			name:       "line numbers count from the start of the file",
			args:       []string{"validate", "-f", "-"},
			stdin:      "a: 1\n---\nb: 1\nb: 2\n",
			wantCode:   2,
			wantErrOut: "error: stdin: document 2 is not valid YAML: yaml: unmarshal errors:\n  line 4: key \"b\" already set in map\n",
		},
		{
			name:       "missing file",
			args:       []string{"validate", "-f", examples + "does-not-exist.yaml"},
			wantCode:   2,
			wantErrOut: "error: cannot read " + examples + "does-not-exist.yaml: no such file or directory\n",
		},
		{
			name:       "empty input",
			args:       []string{"validate", "-f", "-"},
			stdin:      "# nothing here\n",
			wantCode:   2,
			wantErrOut: "error: stdin: no YAML documents found\n",
		},
		{
			name:       "no file flag",
			args:       []string{"validate"},
			wantCode:   2,
			wantErrOut: "error: required flag -f/--filename is not set (use \"-\" for stdin)\n",
		},
		{
			name:       "unknown output format",
			args:       []string{"validate", "-f", examples + "networkconfig.yaml", "-o", "yaml"},
			wantCode:   2,
			wantErrOut: "error: --output \"yaml\" is not supported, use text or json\n",
		},
		{
			name:       "unknown IP family",
			args:       []string{"validate", "-f", examples + "networkconfig.yaml", "--ip-families", "IPv4,IPv5"},
			wantCode:   2,
			wantErrOut: "error: --ip-families IPv4,IPv5: Unsupported value: \"IPv5\": supported values: \"IPv4\", \"IPv6\"\n",
		},
		{
			name:       "ip families for a Shoot are bad usage, not silently ignored",
			args:       []string{"validate", "-f", examples + "shoot.yaml", "--ip-families", "IPv6"},
			wantCode:   2,
			wantErrOut: "error: --ip-families applies to NetworkConfig documents only; Shoot garden-dev/johndoe-azure uses its spec.networking.ipFamilies\n",
		},
		{
			name:       "positional argument",
			args:       []string{"validate", "-f", examples + "networkconfig.yaml", "extra"},
			wantCode:   2,
			wantErrOut: "error: unknown command \"extra\" for \"calico-pilot validate\"\n",
		},
	}
	runCLICases(t, tests)
}

// validate quotes at most 256 bytes of a bad value (issue 21 finding 12: a 10 MB value was echoed
// in full), in text and JSON, and reads JSON with surrogate-pair escapes as kubectl does.
func TestValidateLongBadValueAndSurrogates(t *testing.T) {
	long := strings.Repeat("x", 10<<20)
	path := writeTemp(t, "nc.json", `{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkConfig","backend":"`+long+`","ipam":{"type":"host-local"}}`)
	for _, format := range []string{"text", "json"} {
		code, out, _ := runCLI(t, "validate", "-f", path, "-o", format)
		if code != 1 || len(out) > 4096 || !strings.Contains(out, "... (10485760 bytes)") {
			t.Errorf("%s: exit %d, %d bytes of output: %.300s", format, code, len(out), out)
		}
	}
	sur := writeTemp(t, "sur.json", `{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkConfig","backend":"\ud83d\ude00"}`)
	code, out, errOut := runCLI(t, "validate", "-f", sur)
	if code != 1 || !strings.Contains(out, `backend: Unsupported value: "😀"`) {
		t.Errorf("surrogates: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
