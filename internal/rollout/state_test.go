package rollout_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/calico-pilot/calico-pilot/internal/rollout"
)

// configMapLimit is Kubernetes' limit of a ConfigMap's data (1 MiB); stateBudget is what the
// rollout's state may take of it in the worst case tested here, leaving a margin.
const (
	configMapLimit = 1 << 20
	stateBudget    = configMapLimit / 2
)

// bigSeed returns n shoots in one seed on v3.31, with control-plane namespaces of 35 characters
// (Gardener's are at most 30: "shoot--", a project name and a shoot name of 21 together, "--").
func bigSeed(n int) map[string]rollout.Shoot {
	out := map[string]rollout.Shoot{}
	for i := range n {
		ns := fmt.Sprintf("shoot--project%03d--shoot-name-%05d", i%1000, i)
		out[ns] = rollout.Shoot{Namespace: ns, KubernetesVersion: "1.34.1", Release: v316(), Reconciled: true}
	}
	return out
}

// longError is a distinct lastError description of several KiB, as a webhook or an API server
// error can be.
func longError(ns string) string {
	return "storing the ManagedResource of " + ns + ": admission webhook \"validation.example.io\" denied the request: " +
		strings.Repeat("field spec.template.spec.containers[0].env[42].value is not valid UTF-8 (byte 0xff, «ÿ»); ", 60)
}

// roundTrip encodes st and decodes what it wrote: the ConfigMap data and the State read back.
func roundTrip(t *testing.T, st rollout.State) (map[string]string, rollout.State) {
	t.Helper()
	data, err := st.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := rollout.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return data, back
}

// configMapSize is the size of the State's ConfigMap as the API server stores it (JSON).
func configMapSize(t *testing.T, st rollout.State) int {
	t.Helper()
	data, err := st.Encode()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(&corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: rollout.ConfigMapName, Namespace: "extension-networking-calico-pilot-abcde", ResourceVersion: "123456789", UID: "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"},
		Data:       data,
	})
	if err != nil {
		t.Fatal(err)
	}
	return len(raw)
}

// TestStateOf5000FailedShootsFitsAConfigMap: one wave of 5,000 shoots that all fail at once with
// long, distinct reconcile errors, resumed and failed again (every member then records its own
// deadline start), stays well under the ConfigMap limit; so do 5,000 skipped shoots. The halt
// reason names a few failures and counts the rest; each reason is capped.
func TestStateOf5000FailedShootsFitsAConfigMap(t *testing.T) {
	const n = 5000
	shoots := bigSeed(n)
	sp, now, st := openAll(t, shoots)
	if len(st.Waves[0].Members) != n {
		t.Fatalf("%d members, want %d", len(st.Waves[0].Members), n)
	}
	for ns, s := range shoots {
		s.ReconcileError, s.ReconcileFailed, s.ReconcileErrorAt = longError(ns), true, now.Add(time.Minute)
		shoots[ns] = s
	}
	st, _ = rollout.Evaluate(sp, st, shoots, allComplete, now.Add(2*time.Minute))
	if st.Halted == nil {
		t.Fatal("not halted")
	}
	first := configMapSize(t, st)
	if !rollout.Resume(&st, now.Add(3*time.Minute)) {
		t.Fatal("nothing to resume")
	}
	for ns, s := range shoots {
		s.ReconcileFailed = false // a retried Error now: fails at the deadline, with the error text
		shoots[ns] = s
	}
	st, _ = rollout.Evaluate(sp, st, shoots, allComplete, now.Add(14*time.Minute))
	if st.Halted == nil {
		t.Fatal("not halted again")
	}
	size := configMapSize(t, st)
	t.Logf("5,000 failed members: ConfigMap %d bytes after the first halt, %d bytes after resume and the second halt (limit %d, budget %d)", first, size, configMapLimit, stateBudget)
	if max(first, size) > stateBudget {
		t.Errorf("5,000 failed members: ConfigMap of %d bytes, over the budget of %d (limit %d)", max(first, size), stateBudget, configMapLimit)
	}
	if len(st.Halted.Reason) > 2048 || !strings.Contains(st.Halted.Reason, "wave all: 5000 of 5000 shoots failed, budget 0: ") ||
		!strings.HasSuffix(st.Halted.Reason, "; and 4995 more (calico-pilot rollout status lists them)") {
		t.Errorf("halt reason (%d bytes): %.400q...", len(st.Halted.Reason), st.Halted.Reason)
	}
	kept := 0
	for _, m := range st.Waves[0].Members {
		if m.State != rollout.MemberFailed {
			t.Fatalf("member %s is %s, want Failed", m.Shoot, m.State)
		}
		if len(m.Reason) > 256 || !utf8.ValidString(m.Reason) {
			t.Fatalf("member reason of %d bytes, over 256 or not UTF-8: %q", len(m.Reason), m.Reason)
		}
		if m.Reason != "" {
			kept++
		}
	}
	if kept != 250 {
		t.Errorf("%d failed members keep their reason, want 250", kept)
	}
	var table strings.Builder
	if err := rollout.WriteTable(&table, st, true); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(table.String(), "Failed: reason not kept (more members of this wave failed than the state keeps reasons for; the shoot's Network status says why)"); got != n-250 {
		t.Errorf("rollout status shows %d members without their reason, want %d", got, n-250)
	}
	// Decoded, the State is the one written (so the controller writes it once).
	data, back := roundTrip(t, st)
	again, err := back.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if again[rollout.StateKey] != data[rollout.StateKey] {
		t.Error("the State does not survive a decode and an encode unchanged")
	}

	// 5,000 shoots skipped (Kubernetes versions the target does not support).
	skipped := bigSeed(n)
	for ns, s := range skipped {
		s.KubernetesVersion = "1.33." + ns[len(ns)-1:]
		skipped[ns] = s
	}
	st, _ = rollout.Evaluate(sp, rollout.State{}, skipped, allComplete, now)
	if len(st.Waves[0].Skipped) != n {
		t.Fatalf("%d skipped, want %d", len(st.Waves[0].Skipped), n)
	}
	size = configMapSize(t, st)
	t.Logf("5,000 skipped shoots: ConfigMap %d bytes", size)
	if size > stateBudget {
		t.Errorf("5,000 skipped shoots: ConfigMap of %d bytes, over the budget of %d", size, stateBudget)
	}
}

// TestDecodesThePreviousFormat: a State ConfigMap written by the previous calico-pilot (long member
// keys, skips as a list; testdata/state-v1.json) decodes to the same State, and the State written
// back decodes to it too.
func TestDecodesThePreviousFormat(t *testing.T) {
	raw, err := os.ReadFile("testdata/state-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	st, err := rollout.Decode(map[string]string{rollout.StateKey: string(raw)})
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) metav1.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return metav1.NewTime(v)
	}
	opened := at("2026-12-03T12:00:00Z")
	want := rollout.State{
		Rollout: "to-32", Target: "v3.32",
		Halted: &rollout.Halt{Wave: "canary", At: at("2026-12-03T12:02:00Z"),
			Reason: "wave canary: 1 of 2 shoots failed, budget 0: shoot--p--s02: reconcile failed: storing the ManagedResource: conflict"},
		Waves: []rollout.WaveState{
			{Name: "canary", Opened: &opened,
				Members: []rollout.Member{
					{Shoot: "shoot--p--s02", State: rollout.MemberFailed, Since: opened, Reason: "reconcile failed: storing the ManagedResource: conflict"},
					{Shoot: "shoot--p--s03", State: rollout.MemberSucceeded, Since: opened},
				},
				Skipped: []rollout.Skip{{Shoot: "shoot--p--s00", Reason: `pinned by its owner to calicoVersion "v3.31" (a pin wins over every rollout)`}},
			},
			{Name: "all"},
		},
	}
	equalTimes := cmp.Comparer(func(a, b metav1.Time) bool { return a.Equal(&b) })
	if d := cmp.Diff(want, st, equalTimes); d != "" {
		t.Errorf("decoded previous format (-want +got):\n%s", d)
	}
	data, back := roundTrip(t, st)
	if d := cmp.Diff(want, back, equalTimes); d != "" {
		t.Errorf("written and read again (-want +got):\n%s", d)
	}
	t.Logf("previous format %d bytes, this one %d bytes", len(raw)-1, len(data[rollout.StateKey]))
}
