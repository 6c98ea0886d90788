package values_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// TestResolveComponents: the optional components reach the options as a copy (their checksums
// too); the zero value stays zero; whisker without goldmane is an error on components.whisker.enabled.
func TestResolveComponents(t *testing.T) {
	resolve := func(c values.Components) (values.Options, field.ErrorList) {
		return values.Resolve(values.Inputs{Config: &calicov1alpha1.NetworkConfig{}, Cluster: ipv4Facts(), Settings: values.Settings{Components: c}})
	}
	o, errs := resolve(values.Components{})
	if len(errs) > 0 || o.Components.Any() || o.Components.Checksums != nil {
		t.Errorf("zero: %+v, %v", o.Components, errs)
	}
	in := values.Components{APIServer: true, Goldmane: true, Whisker: true, CSIDriver: true, GoldmaneServiceIP: "10.0.0.85",
		APIServiceCABundle: "pem", Checksums: map[string]string{"goldmane-key-pair": "1"}}
	o, errs = resolve(in)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if d := cmp.Diff(in, o.Components); d != "" {
		t.Errorf("Components (-want +got):\n%s", d)
	}
	in.Checksums["goldmane-key-pair"] = "2"
	if o.Components.Checksums["goldmane-key-pair"] != "1" {
		t.Error("Options share the settings' checksums")
	}
	_, errs = resolve(values.Components{Whisker: true})
	want := field.ErrorList{field.Invalid(field.NewPath("components", "whisker", "enabled"), true,
		"whisker needs goldmane (whisker-backend reads flows from Goldmane); enable goldmane as well, or turn whisker off")}
	if d := cmp.Diff(want, errs); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
}
