package pipeline

import (
	"testing"

	"k8s.io/utils/ptr"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
)

func TestChooseCompatibility(t *testing.T) {
	honour := &configv1alpha1.ControllerConfiguration{Compatibility: &configv1alpha1.Compatibility{HonourIgnoredFields: ptr.To(true)}}
	noHonour := &configv1alpha1.ControllerConfiguration{Compatibility: &configv1alpha1.Compatibility{HonourIgnoredFields: ptr.To(false)}}
	const typeMeta = `{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkStatus"}`
	tests := []struct {
		name     string
		status   string // providerStatus JSON; "" = unset
		mr       bool   // the ManagedResource exists
		operator *configv1alpha1.ControllerConfiguration
		want     calicov1alpha1.CompatibilityMode
	}{
		{name: "new Network", want: "Native"},
		{name: "reference status (TypeMeta only)", status: typeMeta, want: "Reference"},
		{name: "no status but a deployed ManagedResource", mr: true, want: "Reference"},
		{name: "reference, operator honours ignored fields", status: typeMeta, mr: true, operator: honour, want: "Native"},
		{name: "reference, operator says false", status: typeMeta, operator: noHonour, want: "Reference"},
		{name: "recorded Reference is kept", status: `{"overlayEnabled":true,"compatibility":"Reference"}`, mr: true, want: "Reference"},
		{name: "recorded Native is kept", status: `{"overlayEnabled":true,"compatibility":"Native"}`, mr: true, want: "Native"},
		{name: "calico-pilot status from before the mode was recorded", status: `{"overlayEnabled":true,"backend":"bird"}`, mr: true, want: "Native"},
		{name: "recorded Reference, operator opts in later", status: `{"compatibility":"Reference"}`, operator: honour, want: "Native"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw []byte
			if tt.status != "" {
				raw = []byte(tt.status)
			}
			d, err := DeployedFrom(raw, tt.mr)
			if err != nil {
				t.Fatal(err)
			}
			if got := ChooseCompatibility(d, tt.operator); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
	if _, err := DeployedFrom([]byte(`{"compatibility":`), false); err == nil {
		t.Error("DeployedFrom accepted a providerStatus that is not JSON")
	}
}
