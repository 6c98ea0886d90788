package rules_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion/calicoversiontest"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

func pin(s string) *calicov1alpha1.NetworkConfig {
	return &calicov1alpha1.NetworkConfig{CalicoVersion: &s}
}

var pcPath = field.NewPath("spec", "networking", "providerConfig")

func TestCalicoVersion(t *testing.T) {
	accepted := "a line (v3.31, v3.32: its newest release) or a release (v3.31.6, v3.31.7, v3.32.1)"
	for _, tt := range []struct {
		cfg  *calicov1alpha1.NetworkConfig
		want string
		err  field.ErrorList
	}{
		{cfg: nil},
		{cfg: &calicov1alpha1.NetworkConfig{}},
		{cfg: pin("v3.32"), want: "v3.32.1"},
		{cfg: pin("3.31"), want: "v3.31.7"},
		{cfg: pin("v3.32.1"), want: "v3.32.1"},
		{cfg: pin("v3.31.6"), want: "v3.31.6"},
		{cfg: pin("v3.31.5"), err: field.ErrorList{field.Invalid(pcPath.Child("calicoVersion"), "v3.31.5",
			`Calico v3.31.5 is not a release this calico-pilot deploys; its line v3.31 has v3.31.6, v3.31.7 (name the line for its newest release)`).WithOrigin("calicoVersion.supported")}},
		{cfg: pin("v3.30"), err: field.ErrorList{field.Invalid(pcPath.Child("calicoVersion"), "v3.30",
			`Calico "v3.30" is not supported; accepted: `+accepted).WithOrigin("calicoVersion.supported")}},
		{cfg: pin(""), err: field.ErrorList{field.Invalid(pcPath.Child("calicoVersion"), "",
			"empty; remove the field to follow the operator's release, or name "+accepted).WithOrigin("calicoVersion.supported")}},
	} {
		got, errs := rules.CalicoVersion(tt.cfg, pcPath)
		if got.Name() != tt.want {
			t.Errorf("%v: release %q, want %q", tt.cfg, got.Name(), tt.want)
		}
		if diff := cmp.Diff(tt.err, errs); diff != "" {
			t.Errorf("%v: errors (-want +got):\n%s", tt.cfg, diff)
		}
	}
}

func TestCalicoVersionKubernetes(t *testing.T) {
	p := pcPath.Child("calicoVersion")
	for _, tt := range []struct {
		cfg *calicov1alpha1.NetworkConfig
		k8s string
		err field.ErrorList
	}{
		{cfg: nil, k8s: "1.30.0"},
		{cfg: pin("v3.32"), k8s: "1.34.1"},
		{cfg: pin("v3.31"), k8s: "1.35.0"},
		{cfg: pin("v3.32"), k8s: ""},
		// An unsupported line is the other rule's error.
		{cfg: pin("v3.29"), k8s: "1.33.0"},
		{cfg: pin("v3.32"), k8s: "1.33.4", err: field.ErrorList{field.Invalid(p, "v3.32",
			"Calico v3.32.1 supports Kubernetes 1.34-1.36, the shoot runs 1.33.4 (spec.kubernetes.version); pin v3.31, or remove the pin").WithOrigin("calicoVersion.kubernetes")}},
		{cfg: pin("v3.31.6"), k8s: "1.36.0", err: field.ErrorList{field.Invalid(p, "v3.31.6",
			"Calico v3.31.6 supports Kubernetes 1.32-1.35, the shoot runs 1.36.0 (spec.kubernetes.version); pin v3.32, or remove the pin").WithOrigin("calicoVersion.kubernetes")}},
		{cfg: pin("v3.31"), k8s: "1.37.0", err: field.ErrorList{field.Invalid(p, "v3.31",
			"Calico v3.31.7 supports Kubernetes 1.32-1.35, the shoot runs 1.37.0 (spec.kubernetes.version); no line calico-pilot deploys supports it").WithOrigin("calicoVersion.kubernetes")}},
	} {
		errs := rules.CalicoVersionKubernetes(tt.cfg, tt.k8s, pcPath)
		if diff := cmp.Diff(tt.err, errs); diff != "" {
			t.Errorf("%v on %s: errors (-want +got):\n%s", tt.cfg, tt.k8s, diff)
		}
	}
}

// TestCalicoLineChange: v3.31 and v3.32 share their CRD storage, so only a future line with another
// storage (a synthetic one here) makes going back a storage change; a move that skips a line is refused.
func TestCalicoLineChange(t *testing.T) {
	v33line := calicoversiontest.V3_33
	v33line.CRDStorage = "projectcalico.org/v3"
	cat := calicoversiontest.WithLines(t, v33line)
	r := func(name string) calicoversion.Release { return calicoversiontest.Release(t, cat, name) }
	v31, v317, v32, v33 := r("v3.31.6"), r("v3.31.7"), r("v3.32.1"), r("v3.33.0")
	p := pcPath.Child("calicoVersion")
	for _, tt := range []struct {
		name     string
		from, to calicoversion.Release
		down     bool
		err      field.ErrorList
	}{
		{name: "up", from: v31, to: v32},
		{name: "same", from: v32, to: v32},
		{name: "patch up", from: v31, to: v317},
		{name: "patch down", from: v317, to: v31},
		{name: "down, same storage", from: v32, to: v31, down: true},
		{name: "no pin before", from: calicoversion.Release{}, to: v31},
		{name: "no pin after", from: v32, to: calicoversion.Release{}},
		{name: "up across a storage change", from: v32, to: v33},
		{name: "down across a storage change", from: v33, to: v32, down: true, err: field.ErrorList{field.Forbidden(p,
			"going back from Calico v3.33 to v3.32 crosses a change of the CRD storage (projectcalico.org/v3 -> crd.projectcalico.org/v1): "+
				"v3.32 cannot read the objects v3.33 stored, and re-applying its CRDs would lose them; keep v3.33 (docs/calico-downgrade.md)")}},
		{name: "two lines down", from: v33, to: v31, down: true, err: field.ErrorList{field.Forbidden(p,
			"Calico v3.33.0 to v3.31.6 skips line v3.32: a move goes one line at a time, in Calico's order; move to v3.32 first")}},
		{name: "two lines up", from: v31, to: v33, err: field.ErrorList{field.Forbidden(p,
			"Calico v3.31.6 to v3.33.0 skips line v3.32: a move goes one line at a time, in Calico's order; move to v3.32 first")}},
	} {
		errs, down := rules.CalicoLineChangeIn(cat, tt.from, tt.to, pcPath)
		if down != tt.down {
			t.Errorf("%s: downgrade %t, want %t", tt.name, down, tt.down)
		}
		if diff := cmp.Diff(tt.err, errs); diff != "" {
			t.Errorf("%s: errors (-want +got):\n%s", tt.name, diff)
		}
	}
}
