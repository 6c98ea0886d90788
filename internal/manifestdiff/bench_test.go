package manifestdiff

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// defaultManifests returns the default scenario's golden manifest and a modified copy: a newer
// Calico image everywhere, the overlay switched off in calico-node's env, a new ConfigMap checksum,
// and the ConfigMap's backend changed.
func defaultManifests(tb testing.TB) (old, new []byte) {
	tb.Helper()
	// The render goldens are one file per component; together they are the default shoot.
	files, err := filepath.Glob("../render/testdata/shoot/default/*.yaml")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no golden files of the default scenario: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		old = append(old, b...)
	}
	s := strings.ReplaceAll(string(old), ":v3.31.6", ":v3.32.0")
	s = replace(tb, s, "- name: FELIX_IPINIPENABLED\n          value: \"true\"", "- name: FELIX_IPINIPENABLED\n          value: \"false\"")
	s = replace(tb, s, "  calico_backend: bird\n", "  calico_backend: none\n")
	s = replace(tb, s, "checksum/configmap-calico: e9", "checksum/configmap-calico: f0")
	return old, []byte(s)
}

func TestDefaultScenarioDiff(t *testing.T) {
	oldData, newData := defaultManifests(t)
	p := newParser(t)
	old := mrSet(t, p, string(oldData))
	same := classified(old, mrSet(t, p, string(oldData)))
	if len(same.Objects) != 0 || same.Unchanged != old.Len() || old.Len() != 40 {
		t.Fatalf("the default scenario against itself: %d objects differ, %d unchanged of %d", len(same.Objects), same.Unchanged, old.Len())
	}
	if got := textOf(t, same); got != "0 added, 0 removed, 0 changed, 40 unchanged\nno changes\n" {
		t.Errorf("text for no changes:\n%s", got)
	}
	d := classified(old, mrSet(t, p, string(newData)))
	s := d.Summarize()
	wantRestarts := []string{"DaemonSet kube-system/calico-node", "Deployment kube-system/calico-kube-controllers", "Deployment kube-system/calico-typha-deploy"}
	if strings.Join(s.Restarts, "|") != strings.Join(wantRestarts, "|") || s.Highest != ClassRestart || s.Changed != 4 {
		t.Errorf("summary %+v\n%s", s, textOf(t, d))
	}
}

// BenchmarkDefaultScenario diffs the default scenario's golden manifest (40 objects) against a
// modified copy. DecodeOnly is the baseline: the resource manager's decoder over both streams,
// which any diff has to run; Parse adds normalization; CompareClassify is the diff itself on parsed
// sets; EndToEnd is everything swap-check does per shoot, JSON output included.
func BenchmarkDefaultScenario(b *testing.B) {
	oldData, newData := defaultManifests(b)
	p := newParser(b)
	b.Run("DecodeOnly", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, data := range [][]byte{oldData, newData} {
				dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
				for {
					var u unstructured.Unstructured
					if err := dec.Decode(&u); errors.Is(err, io.EOF) {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	})
	parse := func() (*Set, *Set) {
		o, err := p.ManagedResourceData(map[string][]byte{"config.yaml": oldData})
		if err != nil {
			b.Fatal(err)
		}
		n, err := p.ManagedResourceData(map[string][]byte{"config.yaml": newData})
		if err != nil {
			b.Fatal(err)
		}
		return o, n
	}
	b.Run("Parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			parse()
		}
	})
	b.Run("CompareClassify", func(b *testing.B) {
		o, n := parse()
		b.ReportAllocs()
		for b.Loop() {
			classified(o, n)
		}
	})
	b.Run("EndToEnd", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d := classified(parse())
			if err := d.WriteJSON(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	})
}
