package overlayswitch

import (
	"testing"
)

func TestMutatingAdmissionPolicyAvailable(t *testing.T) {
	tests := []struct {
		name          string
		version       string
		featureGates  map[string]bool
		runtimeConfig map[string]bool
		want          bool
		wantErr       bool
	}{
		{name: "1.36 is GA", version: "1.36.0", want: true},
		{name: "1.37 is GA", version: "1.37.2", want: true},
		{name: "1.35 without opt-in", version: "1.35.4", want: false},
		{name: "1.35 gate without runtimeConfig", version: "1.35.4", featureGates: map[string]bool{"MutatingAdmissionPolicy": true}, want: false},
		{name: "1.35 runtimeConfig without gate", version: "1.35.4", runtimeConfig: map[string]bool{"admissionregistration.k8s.io/v1beta1": true}, want: false},
		{name: "1.34 gate and v1beta1", version: "1.34.3", featureGates: map[string]bool{"MutatingAdmissionPolicy": true}, runtimeConfig: map[string]bool{"admissionregistration.k8s.io/v1beta1": true}, want: true},
		{name: "1.33 gate and v1alpha1", version: "1.33.0", featureGates: map[string]bool{"MutatingAdmissionPolicy": true}, runtimeConfig: map[string]bool{"admissionregistration.k8s.io/v1alpha1": true}, want: true},
		{name: "gate false", version: "1.34.3", featureGates: map[string]bool{"MutatingAdmissionPolicy": false}, runtimeConfig: map[string]bool{"admissionregistration.k8s.io/v1beta1": true}, want: false},
		{name: "runtimeConfig switched off", version: "1.34.3", featureGates: map[string]bool{"MutatingAdmissionPolicy": true}, runtimeConfig: map[string]bool{"admissionregistration.k8s.io/v1beta1": false}, want: false},
		{name: "unparsable version", version: "one.two", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MutatingAdmissionPolicyAvailable(tt.version, tt.featureGates, tt.runtimeConfig)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNeedsRouteCheck(t *testing.T) {
	on, off := true, false
	tests := []struct {
		name string
		in   Inputs
		want bool
	}{
		{name: "on to off with gate and MAP", in: Inputs{GateEnabled: true, MAPAvailable: true, OverlayDeployed: &on, OverlayDesired: false}, want: true},
		{name: "gate off", in: Inputs{GateEnabled: false, MAPAvailable: true, OverlayDeployed: &on, OverlayDesired: false}, want: false},
		{name: "MAP API not available", in: Inputs{GateEnabled: true, MAPAvailable: false, OverlayDeployed: &on, OverlayDesired: false}, want: false},
		{name: "off to on", in: Inputs{GateEnabled: true, MAPAvailable: true, OverlayDeployed: &off, OverlayDesired: true}, want: false},
		{name: "stays on", in: Inputs{GateEnabled: true, MAPAvailable: true, OverlayDeployed: &on, OverlayDesired: true}, want: false},
		{name: "stays off", in: Inputs{GateEnabled: true, MAPAvailable: true, OverlayDeployed: &off, OverlayDesired: false}, want: false},
		{name: "nothing deployed yet", in: Inputs{GateEnabled: true, MAPAvailable: true, OverlayDeployed: nil, OverlayDesired: false}, want: false},
		{name: "hibernated", in: Inputs{GateEnabled: true, MAPAvailable: true, OverlayDeployed: &on, OverlayDesired: false, Hibernated: true}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NeedsRouteCheck(tt.in); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRoutesNotReadyErrorMessage(t *testing.T) {
	err := &RoutesNotReadyError{Total: 8, NotReady: []NodeNotReady{
		{Name: "a", Reason: "no NetworkUnavailable condition"},
		{Name: "b", Reason: "x"}, {Name: "c", Reason: "x"}, {Name: "d", Reason: "x"}, {Name: "e", Reason: "x"}, {Name: "f", Reason: "x"},
	}}
	want := "waiting for routes to be created on all nodes before disabling overlay: 6 of 8 nodes not ready (a: no NetworkUnavailable condition, b: x, c: x, d: x, e: x, and 1 more); the overlay stays enabled until every node has condition NetworkUnavailable=False with reason RouteCreated"
	if got := err.Error(); got != want {
		t.Errorf("message:\n got %s\nwant %s", got, want)
	}
}
