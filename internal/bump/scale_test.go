package bump

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// configMapCase builds a ConfigMap with n keys: the old upstream, a downstream that reorders the
// keys (a permutation, no common runs of lines), and a new upstream that changes every value.
func configMapCase(n int) (Input, Input, Input) {
	var ou, nu strings.Builder
	header := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  namespace: kube-system\ndata:\n"
	ou.WriteString(header)
	nu.WriteString(header)
	keys := make([]int, n)
	for i := range keys {
		keys[i] = i
		fmt.Fprintf(&ou, "  key%05d: value-%d\n", i, i)
		fmt.Fprintf(&nu, "  key%05d: value-%d-new\n", i, i)
	}
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(n, func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	var od strings.Builder
	od.WriteString(header)
	for _, k := range keys {
		fmt.Fprintf(&od, "  key%05d: value-%d\n", k, k)
	}
	return Input{Name: "old-upstream.yaml", Data: []byte(ou.String())},
		Input{Name: "old-downstream.yaml", Data: []byte(od.String())},
		Input{Name: "new-upstream.yaml", Data: []byte(nu.String())}
}

// TestReorderedLargeRegion: "removed by the downstream but changed upstream is a conflict" holds
// at any size. The old alignment gave up on gaps above 4M table cells, so at 5,000 keys every
// upstream value looked removed and re-added, the downstream's re-added keys won, and 4,999 of
// 5,000 upstream changes vanished with exit 0.
func TestReorderedLargeRegion(t *testing.T) {
	for _, n := range []int{1000, 5000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ou, od, nu := configMapCase(n)
			res, err := Merge(context.Background(), ou, od, nu, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Report.Clean() {
				t.Errorf("report is clean, want conflicts for keys the downstream moved and upstream changed")
			}
			out := string(res.Output)
			var missing []int
			for i := 0; i < n; i++ {
				if !strings.Contains(out, fmt.Sprintf("key%05d: value-%d-new\n", i, i)) {
					missing = append(missing, i)
				}
			}
			if len(missing) > 0 {
				t.Errorf("%d of %d upstream changes are neither applied nor in a conflict block (first: key%05d)", len(missing), n, missing[0])
			}
		})
	}
}

// BenchmarkReorderedLargeRegion runs the same bump at 1k, 5k and 20k keys; the per-key cost
// should stay about flat. BenchmarkLineDiffReordered is the two-way line diff of the two
// upstreams at the same sizes, as a baseline in the same run.
func BenchmarkReorderedLargeRegion(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		ou, od, nu := configMapCase(n)
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Merge(context.Background(), ou, od, nu, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkLineDiffReordered(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		ou, od, _ := configMapCase(n)
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			for b.Loop() {
				diffLines(string(ou.Data), string(od.Data))
			}
		})
	}
}
