package bump

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const smallUpstream = `apiVersion: v1
kind: ConfigMap
metadata:
  name: calico-config
  namespace: kube-system
data:
  veth_mtu: "0"
  typha_service_name: none
  calico_backend: bird
`

func TestEmptyUpstreamIsBadInput(t *testing.T) {
	good := Input{Name: "good.yaml", Data: []byte(smallUpstream)}
	for _, tc := range []struct {
		name             string
		oldUp, newUp     string
		wantFile, reason string
	}{
		{name: "empty old upstream", oldUp: "", newUp: smallUpstream, wantFile: "old.yaml"},
		{name: "only separators and comments", oldUp: "---\n# nothing here\n---\n", newUp: smallUpstream, wantFile: "old.yaml"},
		{name: "empty new upstream", oldUp: smallUpstream, newUp: "\n\n", wantFile: "new.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Merge(context.Background(), Input{Name: "old.yaml", Data: []byte(tc.oldUp)}, good, Input{Name: "new.yaml", Data: []byte(tc.newUp)}, Options{})
			var inErr *InputError
			if !errors.As(err, &inErr) {
				t.Fatalf("Merge error = %v, want an *InputError", err)
			}
			want := tc.wantFile + ": no YAML documents (an upstream manifest with at least one key is needed)"
			if diff := cmp.Diff(want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTooManyLines(t *testing.T) {
	good := Input{Name: "good.yaml", Data: []byte(smallUpstream)}
	huge := Input{Name: "huge.yaml", Data: []byte(smallUpstream + strings.Repeat("#\n", 200_000))}
	_, err := Merge(context.Background(), good, huge, good, Options{})
	var inErr *InputError
	if !errors.As(err, &inErr) || err.Error() != "huge.yaml: 200009 lines, more than the limit of 200000 lines per input" {
		t.Errorf("error = %v, want an *InputError naming huge.yaml and the line limit", err)
	}
}

// TestUnrelatedDownstream: a downstream of another manifest merged against this old upstream
// used to report "0 conflicts"; now the downstream-origin check fails unless forced.
func TestUnrelatedDownstream(t *testing.T) {
	oldUp := Input{Name: "old.yaml", Data: []byte(smallUpstream)}
	newUp := Input{Name: "new.yaml", Data: []byte(strings.Replace(smallUpstream, "bird", "vxlan", 1))}
	unrelated := Input{Name: "down.yaml", Data: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: something-else\nspec:\n  replicas: 3\n")}

	res, err := Merge(context.Background(), oldUp, unrelated, newUp, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := Check{Name: "downstream-origin", OK: false, Message: "the old downstream has 0 of the old upstream's 9 key paths (0%, at least 50% expected): it was probably not made from this old upstream; check --old-upstream, or pass --force"}
	if diff := cmp.Diff(want, res.Report.Checks[0]); diff != "" {
		t.Errorf("origin check (-want +got):\n%s", diff)
	}
	if res.Report.Clean() {
		t.Error("report is clean for an unrelated downstream")
	}

	forced, err := Merge(context.Background(), oldUp, unrelated, newUp, Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := forced.Report.Checks[0]; !c.OK || !strings.HasSuffix(c.Message, "(accepted with --force)") {
		t.Errorf("forced origin check = %+v, want OK and accepted with --force", c)
	}

	// A downstream made from the old upstream has no such check at all.
	related := Input{Name: "down.yaml", Data: []byte(strings.Replace(smallUpstream, `veth_mtu: "0"`, `veth_mtu: "1440"`, 1))}
	res, err = Merge(context.Background(), oldUp, related, newUp, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Report.Checks {
		if c.Name == "downstream-origin" {
			t.Errorf("unexpected origin check for a related downstream: %+v", c)
		}
	}
}

// TestCRLFDownstream: a CRLF downstream with LF upstreams gives the same patches as all-LF
// inputs, and the output keeps the downstream's CRLF line endings.
func TestCRLFDownstream(t *testing.T) {
	oldUp := Input{Name: "old.yaml", Data: []byte(smallUpstream)}
	newUp := Input{Name: "new.yaml", Data: []byte(strings.Replace(smallUpstream, "typha_service_name: none", "typha_service_name: calico-typha", 1))}
	downLF := strings.Replace(smallUpstream, `veth_mtu: "0"`, `veth_mtu: "1440"`, 1)
	lf, err := Merge(context.Background(), oldUp, Input{Name: "down.yaml", Data: []byte(downLF)}, newUp, Options{})
	if err != nil {
		t.Fatal(err)
	}
	crlf, err := Merge(context.Background(), oldUp, Input{Name: "down.yaml", Data: []byte(strings.ReplaceAll(downLF, "\n", "\r\n"))}, newUp, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(crlf.Report.Patches), 1; got != want || crlf.Report.Conflicts != 0 {
		t.Errorf("CRLF downstream: %d patches, %d conflicts; want %d patch, 0 conflicts", got, crlf.Report.Conflicts, want)
	}
	wantOut := strings.ReplaceAll(string(lf.Output), "\n", "\r\n")
	if diff := cmp.Diff(wantOut, string(crlf.Output)); diff != "" {
		t.Errorf("CRLF output (-want +got):\n%s", diff)
	}
	wantNote := "line endings differ (old upstream LF, old downstream CRLF, new upstream LF): compared without carriage returns; the output has the old downstream's CRLF line endings"
	if diff := cmp.Diff([]string{wantNote}, crlf.Report.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

// cancelAfter is a context whose Err turns to Canceled after a number of calls: it cancels a
// merge in the middle of its work, deterministically.
type cancelAfter struct {
	context.Context
	calls, after int
}

func (c *cancelAfter) Err() error {
	c.calls++
	if c.calls > c.after {
		return context.Canceled
	}
	return nil
}

func TestMergeCancelled(t *testing.T) {
	ou, od, nu := configMapCase(5000)
	// Count how often a complete merge consults the context, then cancel at points through it.
	probe := &cancelAfter{Context: context.Background(), after: 1 << 30}
	if _, err := Merge(probe, ou, od, nu, Options{}); err != nil {
		t.Fatal(err)
	}
	if probe.calls < 100 {
		t.Fatalf("a 5,000-key merge consulted its context only %d times", probe.calls)
	}
	for _, after := range []int{0, 3, probe.calls / 4, probe.calls / 2, probe.calls - 2} {
		ctx := &cancelAfter{Context: context.Background(), after: after}
		res, err := Merge(ctx, ou, od, nu, Options{})
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Errorf("cancelled after %d of %d checks: result %v, error %v; want no result and context.Canceled", after, probe.calls, res != nil, err)
		}
	}
}
