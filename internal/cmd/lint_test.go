package cmd

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLintCommand(t *testing.T) {
	const testdata = "../lint/testdata/"
	const warningOnly = `apiVersion: crd.projectcalico.org/v1
kind: NetworkPolicy
metadata: {name: p, namespace: a}
spec:
  order: 1
  selector: "!all()"
  types: [Ingress]
`
	tests := []cliCase{
		{
			name:    "the end-user guide's example policy is clean",
			args:    []string{"lint", "-f", testdata + "userguide-globalnetworkpolicy.yaml"},
			wantOut: "GlobalNetworkPolicy allow-to-kube-apiserver: clean\n",
		},
		{
			name:    "clean in JSON is an empty array",
			args:    []string{"lint", "-f", testdata + "userguide-networkpolicy.yaml", "-o", "json"},
			wantOut: "[]\n",
		},
		{
			name:  "warnings only exit 0",
			args:  []string{"lint", "-f", "-"},
			stdin: warningOnly,
			wantOut: "spec.selector: warning: the policy applies to no endpoint: !all() matches nothing (line 6, column 13)\n" +
				"0 errors, 1 warning in 1 document\n",
		},
		{
			name:     "errors exit 1",
			args:     []string{"lint", "-f", "-"},
			stdin:    strings.Replace(warningOnly, `"!all()"`, `"a = 'b'"`, 1),
			wantCode: 1,
			wantOut: `spec.selector: error: Invalid value: "a = 'b'": invalid selector: column 3: single '=': use == to compare (line 6, column 16)` + "\n" +
				"1 error, 0 warnings in 1 document\n",
		},
		{
			name:       "missing file exits 2",
			args:       []string{"lint", "-f", "does-not-exist.yaml"},
			wantCode:   2,
			wantErrOut: "error: cannot read does-not-exist.yaml: no such file or directory\n",
		},
		{
			name:       "not YAML exits 2",
			args:       []string{"lint", "-f", "-"},
			stdin:      "a: [\n",
			wantCode:   2,
			wantErrOut: "error: stdin: document 1 is not valid YAML: yaml: line 1: did not find expected node content\n",
		},
		{
			name:       "empty input exits 2",
			args:       []string{"lint", "-f", "-"},
			stdin:      "# nothing\n",
			wantCode:   2,
			wantErrOut: "error: stdin: no YAML documents found\n",
		},
		{
			name:       "no file flag exits 2",
			args:       []string{"lint"},
			wantCode:   2,
			wantErrOut: "error: required flag -f/--filename is not set (use \"-\" for stdin)\n",
		},
		{
			name:       "unknown output format exits 2",
			args:       []string{"lint", "-f", "-", "-o", "xml"},
			wantCode:   2,
			wantErrOut: "error: --output \"xml\" is not supported, use text or json\n",
		},
	}
	runCLICases(t, tests)
}

func TestLintCommandJSON(t *testing.T) {
	code, out, errOut := runCLIWith(context.Background(), nil, "lint", "-f", "../lint/testdata/userguide-broken.yaml", "-o", "json")
	if code != ExitFindings {
		t.Fatalf("exit code %d, want 1 (stderr %q)", code, errOut)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if len(got) != 15 {
		t.Fatalf("%d findings, want 15", len(got))
	}
	want := map[string]any{
		"document": float64(3), "object": "GlobalNetworkPolicy allow-to-kube-apiserver-3",
		"field": "spec.egress[0].destination.selector", "severity": "error", "rule": "selector-syntax",
		"detail": `Invalid value: "networking.gardener.cloud/endpoint = 'kube-apiserver'": invalid selector: column 36: single '=': use == to compare`,
		"line":   float64(59), "column": float64(52),
	}
	if d := cmp.Diff(want, got[5]); d != "" {
		t.Errorf("finding 5 (-want +got):\n%s", d)
	}
}
