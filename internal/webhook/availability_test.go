package webhook

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
)

// TestPinNeedsTheLandscapesImages (issue 35): with a landscape's image vector that mirrors only
// v3.31.6, a new or changed pin to a release it has no images of is refused naming the entry to add;
// a line pin is satisfied by the line's newest mirrored release; an unchanged pin is not judged again.
func TestPinNeedsTheLandscapesImages(t *testing.T) {
	vector, err := imagevector.LoadVector([]byte("images:\n- name: calico-node\n  repository: example.org/mirror/calico-node\n  tag: v3.31.6\n"))
	if err != nil {
		t.Fatal(err)
	}
	resolver := imagevector.NewResolver(vector)
	v := ShootValidator{Availability: func(k8s string) calicoversion.Available { return resolver.Availability(k8s).Func() }}
	pinned := func(pin string) testShoot {
		return testShoot{created: true, kubernetes: "1.34.2", providerConfig: `{"calicoVersion":"` + pin + `"}`}
	}
	const want332 = `Invalid value: "v3.32": ` +
		"Calico v3.32.1's images are not in the image vector for Kubernetes 1.34.2: calico-node is example.org/mirror/calico-node:v3.31.6 (of release v3.31.6); " +
		"add the image vector entry {name: calico-node, version: v3.32.1, repository: example.org/mirror/calico-node, tag: v3.32.1}"
	unpinned := testShoot{created: true, kubernetes: "1.34.2"}
	old332 := pinned("v3.32")
	for _, tt := range []struct {
		name   string
		op     admissionv1.Operation
		shoot  testShoot
		old    *testShoot
		denied string
	}{
		{name: "new shoot pinned to v3.32", op: admissionv1.Create, shoot: pinned("v3.32"), denied: want332},
		{name: "pin added to v3.32", op: admissionv1.Update, shoot: pinned("v3.32"), old: &unpinned, denied: want332},
		{name: "line pin v3.31: its mirrored release", op: admissionv1.Create, shoot: pinned("v3.31")},
		{name: "pin to the mirrored release", op: admissionv1.Create, shoot: pinned("v3.31.6")},
		{name: "unchanged pin is not judged again", op: admissionv1.Update, shoot: pinned("v3.32"), old: &old332},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := v.Handle(context.Background(), request(t, tt.op, tt.shoot, tt.old))
			if tt.denied == "" {
				if !resp.Allowed {
					t.Fatalf("denied: %v", resp.Result)
				}
				return
			}
			want := []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: pinField, Message: tt.denied}}
			if resp.Allowed || resp.Result == nil || resp.Result.Details == nil || !cmp.Equal(resp.Result.Details.Causes, want) {
				t.Fatalf("got allowed=%t %v\nwant denied with %v", resp.Allowed, resp.Result, want)
			}
		})
	}
	// Without an image vector override every release is available: the same pin is admitted.
	if resp := (ShootValidator{}).Handle(context.Background(), request(t, admissionv1.Create, pinned("v3.32"), nil)); !resp.Allowed {
		t.Errorf("without an override: denied %v", resp.Result)
	}
}
