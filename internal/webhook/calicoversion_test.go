package webhook

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicofacts"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion/calicoversiontest"
	"github.com/calico-pilot/calico-pilot/internal/decode"
)

const pinField = "spec.networking.providerConfig.calicoVersion"

// kubeControllersIssue is v3.32.1's known issue as admission (and validate) warn about it.
const kubeControllersIssue = "known issue of Calico v3.32.1 (calico-kube-controllers): kube-controllers does nothing while any calico-node pod is unavailable " +
	"[kube-controllers-stalls-while-calico-node-unavailable]; what to do: docs/calico-lines.md"

// TestCalicoVersionAdmission: the pin is validated on create and on a changed value; an unchanged
// value is not judged again; a move of line is allowed with the facts of the move as warnings.
func TestCalicoVersionAdmission(t *testing.T) {
	v31, v32 := calicoversiontest.Newest(t, "v3.31"), calicoversiontest.Newest(t, "v3.32")
	pinned := func(v, k8s string) testShoot {
		return testShoot{created: true, kubernetes: k8s, providerConfig: `{"calicoVersion":"` + v + `"}`}
	}
	unpinned := func(k8s string) testShoot { return testShoot{created: true, kubernetes: k8s} }
	ptr := func(s testShoot) *testShoot { return &s }
	invalid := []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: pinField}}
	for _, tt := range []struct {
		name          string
		op            admissionv1.Operation
		shoot         testShoot
		old           *testShoot
		denied        []metav1.StatusCause
		warnings      int
		firstWarning  string
		warningsCarry []string
	}{
		{name: "supported pin on create: the known issues of its release", op: admissionv1.Create, shoot: pinned("v3.32", "1.34.2"), warnings: 1,
			firstWarning: pinField + ": " + kubeControllersIssue},
		{name: "exact release on create", op: admissionv1.Create, shoot: pinned("v3.31.6", "1.34.2")},
		{name: "unsupported pin on create", op: admissionv1.Create, shoot: pinned("v3.30", "1.34.2"), denied: invalid},
		{name: "another patch release on create", op: admissionv1.Create, shoot: pinned("v3.32.0", "1.34.2"), denied: invalid},
		{name: "pin whose line does not support the shoot's Kubernetes", op: admissionv1.Create, shoot: pinned("v3.31", "1.36.1"), denied: invalid},
		{name: "new pin on update that does not support Kubernetes", op: admissionv1.Update, shoot: pinned("v3.31", "1.36.1"), old: ptr(unpinned("1.36.1")), denied: invalid},
		{name: "unsupported pin kept on update (a line a later calico-pilot dropped)", op: admissionv1.Update,
			shoot: pinned("v3.30", "1.34.2"), old: ptr(pinned("v3.30", "1.34.2")), warnings: 1,
			firstWarning: pinField + ": v3.30 Calico \"v3.30\" is not supported; accepted: a line (v3.31, v3.32: its newest release) or a release (v3.31.6, v3.31.7, v3.32.1); " +
				"allowed because the stored Shoot already has this value (a new Shoot or a changed value is refused); deployed: the pin is not used: " +
				"a running shoot keeps the release it runs, a new one gets the operator's default (calico.defaultVersion) or calico-pilot's"},
		{name: "Kubernetes upgrade past an unchanged pin's range is allowed with a warning", op: admissionv1.Update,
			shoot: pinned("v3.31", "1.36.0"), old: ptr(pinned("v3.31", "1.35.3")), warnings: 1,
			firstWarning: pinField + ": v3.31 Calico v3.31.7 supports Kubernetes 1.32-1.35, the shoot runs 1.36.0 (spec.kubernetes.version); pin v3.32, or remove the pin; " +
				"allowed because the pin is unchanged (a new or changed pin is refused); deployed: no move starts to a release outside the Kubernetes versions Calico supports for it: a running shoot keeps the release it runs, a new one gets a release whose line supports its Kubernetes version"},
		{name: "changed pin to a line that does not support Kubernetes", op: admissionv1.Update,
			shoot: pinned("v3.31", "1.36.0"), old: ptr(pinned("v3.32", "1.36.0")), denied: invalid},
		{name: "unchanged pin", op: admissionv1.Update, shoot: pinned("v3.32", "1.35.0"), old: ptr(pinned("v3.32", "1.35.0"))},
		{name: "same line, other spelling", op: admissionv1.Update, shoot: pinned("v3.32.1", "1.35.0"), old: ptr(pinned("3.32", "1.35.0"))},
		{name: "pin downgrade: allowed, with the downgrade facts", op: admissionv1.Update,
			shoot: pinned("v3.31", "1.35.0"), old: ptr(pinned("v3.32", "1.35.0")),
			warnings: len(calicofacts.Warnings(v32, v31, pinField)),
			firstWarning: pinField + ": v3.32.1 -> v3.31.7 is a Calico downgrade; what it does and what to check first: docs/calico-downgrade.md, " +
				"calico-pilot plan --target-version v3.31.7 --kubeconfig SHOOT (live checks)",
			warningsCarry: []string{"[down.policy-tiers]", "[down.cluster-network-policy]", "[down.nftables]"}},
		{name: "pin upgrade: allowed, with the upgrade facts", op: admissionv1.Update,
			shoot: pinned("v3.32", "1.35.0"), old: ptr(pinned("v3.31", "1.35.0")),
			warnings:      len(calicofacts.Warnings(v31, v32, pinField)) + 1,
			warningsCarry: []string{"[up.anp-banp-not-enforced]", "[up.policy-name-migration]", kubeControllersIssue}},
		{name: "another patch release of the line pinned: no facts of a line move, no known issue", op: admissionv1.Update,
			shoot: pinned("v3.31.7", "1.35.0"), old: ptr(pinned("v3.31.6", "1.35.0"))},
		{name: "pin to the running line's release: its known issues are not new", op: admissionv1.Update,
			shoot: pinned("v3.32.1", "1.35.0"), old: ptr(pinned("v3.32", "1.35.0"))},
		{name: "pin removed", op: admissionv1.Update, shoot: unpinned("1.35.0"), old: ptr(pinned("v3.32", "1.35.0")), warnings: 1,
			firstWarning: pinField + ": removing the pin to v3.32 hands the shoot's Calico release to the operator (calico.defaultVersion, calico.rollout); " +
				"if that is a line older than v3.32 the shoot moves down: see docs/calico-downgrade.md, and preview it with calico-pilot plan --target-version"},
		{name: "new pin to an older line", op: admissionv1.Update, shoot: pinned("v3.31", "1.35.0"), old: ptr(unpinned("1.35.0")), warnings: 1,
			firstWarning: pinField + ": pinning v3.31; if the shoot runs a newer line (its Network's providerStatus calicoVersion), this is a downgrade: " +
				"see docs/calico-downgrade.md, and preview it with calico-pilot plan --target-version v3.31"},
		{name: "new pin to the newest line: the known issues of its release", op: admissionv1.Update, shoot: pinned("v3.32", "1.35.0"), old: ptr(unpinned("1.35.0")),
			warnings: 1, firstWarning: pinField + ": " + kubeControllersIssue},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := ShootValidator{}.Handle(context.Background(), request(t, tt.op, tt.shoot, tt.old))
			got := outcomeOf(resp)
			if tt.denied != nil {
				if got.Allowed || !cmp.Equal(got.Causes, tt.denied) {
					t.Fatalf("got %+v (%v), want denied with %v", got, resp.Result, tt.denied)
				}
				return
			}
			if !resp.Allowed {
				t.Fatalf("denied: %v", resp.Result)
			}
			if len(resp.Warnings) != tt.warnings {
				t.Fatalf("%d warning(s), want %d:\n%s", len(resp.Warnings), tt.warnings, strings.Join(resp.Warnings, "\n"))
			}
			if tt.firstWarning != "" && resp.Warnings[0] != tt.firstWarning {
				t.Errorf("warning\n%s\nwant\n%s", resp.Warnings[0], tt.firstWarning)
			}
			for _, w := range resp.Warnings {
				if !strings.HasPrefix(w, pinField+": ") {
					t.Errorf("warning without the field path: %s", w)
				}
			}
			joined := strings.Join(resp.Warnings, "\n")
			for _, c := range tt.warningsCarry {
				if !strings.Contains(joined, c) {
					t.Errorf("no warning names %s:\n%s", c, joined)
				}
			}
		})
	}
}

// TestPinChangeUnknownOldPin: a stored pin this calico-pilot no longer deploys says nothing about the
// line the shoot runs, so a new pin is judged as if there were none. (Going down across a CRD storage
// change needs a line with another storage: rules.TestCalicoLineChange covers it with a synthetic one.)
func TestPinChangeUnknownOldPin(t *testing.T) {
	cfg := func(v string) *calicov1alpha1.NetworkConfig { return &calicov1alpha1.NetworkConfig{CalicoVersion: &v} }
	errs, warnings := pinChange(cfg("v3.99"), cfg("v3.31"), decode.ProviderConfigPath())
	if len(errs) != 0 || len(warnings) != 1 || !strings.Contains(warnings[0], "pinning v3.31") {
		t.Errorf("an old pin no longer deployed: %v %q", errs, warnings)
	}
}
