package pipeline

import (
	"errors"
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

func TestCompatibility(t *testing.T) {
	exists := func(b bool) func() (bool, error) { return func() (bool, error) { return b, nil } }
	tests := []struct {
		name          string
		status        string
		mr            func() (bool, error)
		want          calicov1alpha1.CompatibilityMode
		wantStatusErr bool
	}{
		{name: "offline, no status", want: "Native"},
		{name: "no status, no ManagedResource", mr: exists(false), want: "Native"},
		{name: "no status, a ManagedResource", mr: exists(true), want: "Reference"},
		{name: "the reference's status", status: `{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkStatus"}`, mr: exists(false), want: "Reference"},
		{name: "ours", status: `{"compatibility":"Reference"}`, mr: exists(false), want: "Reference"},
		{name: "unreadable: someone else's", status: `{"compatibility":`, mr: exists(false), want: "Reference", wantStatusErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw []byte
			if tt.status != "" {
				raw = []byte(tt.status)
			}
			got, d, err := Compatibility(raw, tt.mr, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || (d.StatusErr != nil) != tt.wantStatusErr {
				t.Errorf("Compatibility = %s (status error %v), want %s (status error %v)", got, d.StatusErr, tt.want, tt.wantStatusErr)
			}
		})
	}
	if _, _, err := Compatibility(nil, func() (bool, error) { return false, errors.New("boom") }, nil); err == nil || err.Error() != "boom" {
		t.Errorf("the ManagedResource lookup's error = %v, want boom", err)
	}
}
