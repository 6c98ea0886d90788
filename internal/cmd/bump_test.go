package cmd

import (
	"encoding/json"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

const bumpTestdata = "../bump/testdata/"

func TestBumpCommand(t *testing.T) {
	tmp := t.TempDir()
	badYAML := filepath.Join(tmp, "bad.sls")
	writeFile(t, badYAML, "---\nkind: ConfigMap\nmetadata:\n  name: a\n namespace: b\n")
	jinja := func(extra ...string) []string {
		return append([]string{"bump",
			"--old-upstream", bumpTestdata + "jinja-metalk8s/old-upstream.yaml",
			"--old-downstream", bumpTestdata + "jinja-metalk8s/old-downstream.sls",
			"--new-upstream", bumpTestdata + "jinja-metalk8s/new-upstream.yaml",
		}, extra...)
	}
	conflicts := []string{"bump",
		"--old-upstream", bumpTestdata + "conflicts/old-upstream.yaml",
		"--old-downstream", bumpTestdata + "conflicts/old-downstream.yaml",
		"--new-upstream", bumpTestdata + "conflicts/new-upstream.yaml",
	}
	want := func(path string) string {
		b, err := os.ReadFile(bumpTestdata + path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cases := []bumpCase{
		{
			name:       "clean bump to stdout, text report on stderr",
			args:       jinja(),
			wantCode:   0,
			wantOut:    want("jinja-metalk8s/want.sls"),
			wantErrHas: []string{"6 downstream patches, 0 conflicts", "versions:       v3.25.0 -> v3.26.1 (from upstream image tags)", "ok   image rewrites"},
		},
		{
			name:        "conflicts still write the output and exit 1",
			args:        conflicts,
			wantCode:    1,
			wantOut:     want("conflicts/want.yaml"),
			wantErrHas:  []string{"patch 1 [conflict]"},
			wantErrLast: "error: 3 conflict blocks left in the output (search for '<<<<<<< downstream')",
		},
		{
			name:        "failing expect-count exits 1",
			args:        jinja("--expect-count", `build_image_name\(=5`, "--expect-absent", "docker.io/calico"),
			wantCode:    1,
			wantOut:     want("jinja-metalk8s/want.sls"),
			wantErrLast: `error: check expect-count "build_image_name\\("=5 failed: 2 lines match, expected 5 (lines 26, 31)`,
		},
		{
			name:        "unparsable downstream exits 2 with file and line",
			args:        []string{"bump", "--old-upstream", bumpTestdata + "conflicts/old-upstream.yaml", "--old-downstream", badYAML, "--new-upstream", bumpTestdata + "conflicts/new-upstream.yaml"},
			wantCode:    2,
			wantErrLast: "error: " + badYAML + ":5: not valid YAML (after masking templates): did not find expected key",
		},
		{
			name:        "missing file exits 2",
			args:        []string{"bump", "--old-upstream", filepath.Join(tmp, "nope.yaml"), "--old-downstream", badYAML, "--new-upstream", badYAML},
			wantCode:    2,
			wantErrLast: "error: --old-upstream: cannot read " + filepath.Join(tmp, "nope.yaml") + ": no such file or directory",
		},
		{
			name:        "missing flags exit 2",
			args:        []string{"bump", "--old-upstream", "a"},
			wantCode:    2,
			wantErrLast: "error: missing required flags: --old-downstream, --new-upstream",
		},
		{
			name:        "bad expect-count exits 2",
			args:        jinja("--expect-count", "foo"),
			wantCode:    2,
			wantErrLast: `error: --expect-count "foo": want REGEX=N, for example 'build_image_name=5'`,
		},
		{
			name:        "bad report format exits 2",
			args:        jinja("--report-format", "xml"),
			wantCode:    2,
			wantErrLast: `error: --report-format "xml" is not supported, use text or json`,
		},
	}
	runBumpCases(t, cases)
}

// bumpCase is a bump command row: args in; the exit code, the exact stdout, substrings of stderr
// and, when set, its exact last line out.
type bumpCase struct {
	name        string
	args        []string
	wantCode    int
	wantOut     string
	wantErrHas  []string
	wantErrLast string
}

// runBumpCases runs every case as a subtest.
func runBumpCases(t *testing.T, cases []bumpCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.args...)
			if code != tc.wantCode {
				t.Errorf("exit code = %d, want %d; stderr:\n%s", code, tc.wantCode, errOut)
			}
			if diff := cmp.Diff(tc.wantOut, out); diff != "" {
				t.Errorf("stdout mismatch (-want +got):\n%s", diff)
			}
			for _, s := range tc.wantErrHas {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr does not contain %q:\n%s", s, errOut)
				}
			}
			if tc.wantErrLast != "" {
				lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
				if diff := cmp.Diff(tc.wantErrLast, lines[len(lines)-1]); diff != "" {
					t.Errorf("last stderr line mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestBumpCommandFiles(t *testing.T) {
	tmp := t.TempDir()
	outFile, reportFile := filepath.Join(tmp, "deployed.sls"), filepath.Join(tmp, "report.json")
	code, out, errOut := runCLI(t, "bump",
		"--old-upstream", bumpTestdata+"jinja-metalk8s/old-upstream.yaml",
		"--old-downstream", bumpTestdata+"jinja-metalk8s/old-downstream.sls",
		"--new-upstream", bumpTestdata+"jinja-metalk8s/new-upstream.yaml",
		"-o", outFile, "--report", reportFile, "--report-format", "json")
	if code != 0 || out != "" || errOut != "" {
		t.Fatalf("code %d, stdout %q, stderr %q; want 0 and no output", code, out, errOut)
	}
	got, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(bumpTestdata + "jinja-metalk8s/want.sls")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("-o file mismatch (-want +got):\n%s", diff)
	}
	raw, err := os.ReadFile(reportFile)
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		FromVersion string `json:"fromVersion"`
		ToVersion   string `json:"toVersion"`
		Conflicts   int    `json:"conflicts"`
		Patches     []struct {
			ID          int    `json:"id"`
			Status      string `json:"status"`
			OutputLines struct {
				From int `json:"from"`
				To   int `json:"to"`
			} `json:"outputLines"`
		} `json:"patches"`
	}
	if err := json.Unmarshal(raw, &report); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, raw)
	}
	if report.FromVersion != "v3.25.0" || report.ToVersion != "v3.26.1" || report.Conflicts != 0 || len(report.Patches) != 6 {
		t.Errorf("report = %+v, want v3.25.0 -> v3.26.1, 0 conflicts, 6 patches", report)
	}
	// The first patch is the Jinja header: output lines 1-6.
	if p := report.Patches[0]; p.OutputLines.From != 1 || p.OutputLines.To != 6 {
		t.Errorf("patch 1 output lines = %+v, want 1-6", p.OutputLines)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Errorf("temporary files left next to the outputs: %v", entries)
	}
}

func TestBumpDigestsCommand(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	digests := map[string]string{}
	for _, img := range []string{"cni", "node", "kube-controllers"} {
		image, err := random.Image(256, 1)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := name.NewTag(host + "/calico/" + img + ":v3.26.1")
		if err != nil {
			t.Fatal(err)
		}
		if err := remote.Write(ref, image); err != nil {
			t.Fatalf("pushing %s: %v", ref, err)
		}
		d, err := image.Digest()
		if err != nil {
			t.Fatal(err)
		}
		digests[img] = d.String()
	}
	cases := []bumpCase{
		{
			name:    "default images",
			args:    []string{"bump", "digests", "--version", "v3.26.1", "--registry", host},
			wantOut: "cni: v3.26.1@" + digests["cni"] + "\nnode: v3.26.1@" + digests["node"] + "\nkube-controllers: v3.26.1@" + digests["kube-controllers"] + "\n",
		},
		{
			name:    "chosen images in the given order",
			args:    []string{"bump", "digests", "--version", "v3.26.1", "--registry", host, "--images", "node,cni"},
			wantOut: "node: v3.26.1@" + digests["node"] + "\ncni: v3.26.1@" + digests["cni"] + "\n",
		},
		{
			name:        "missing tag",
			args:        []string{"bump", "digests", "--version", "v9.9.9", "--registry", host, "--images", "cni"},
			wantCode:    1,
			wantErrLast: "error: resolving " + host + "/calico/cni:v9.9.9: GET " + srv.URL + "/v2/calico/cni/manifests/v9.9.9: MANIFEST_UNKNOWN: Unknown manifest",
		},
		{
			name:        "missing version",
			args:        []string{"bump", "digests", "--registry", host},
			wantCode:    2,
			wantErrLast: "error: --version is required, for example --version v3.26.1",
		},
	}
	runBumpCases(t, cases)

	t.Run("unreachable registry", func(t *testing.T) {
		dead := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
		deadHost := strings.TrimPrefix(dead.URL, "http://")
		dead.Close()
		code, _, errOut := runCLI(t, "bump", "digests", "--version", "v3.26.1", "--registry", deadHost, "--images", "cni", "--timeout", "5s")
		if code != 1 {
			t.Errorf("exit code = %d, want 1", code)
		}
		if want := "error: resolving " + deadHost + "/calico/cni:v3.26.1: "; !strings.HasPrefix(errOut, want) || !strings.Contains(errOut, "connection refused") {
			t.Errorf("stderr = %q, want prefix %q and a connection refused reason", errOut, want)
		}
	})
}
