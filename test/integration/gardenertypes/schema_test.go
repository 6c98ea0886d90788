package gardenertypes

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

// skippedRules is the cause the API server adds when a schema error keeps it from evaluating the
// CEL rules.
var skippedRules = metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: "<nil>"}

func validNetwork(ns string) *extensionsv1alpha1.Network {
	return &extensionsv1alpha1.Network{
		ObjectMeta: metav1.ObjectMeta{Name: "shoot1", Namespace: ns},
		Spec: extensionsv1alpha1.NetworkSpec{
			DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: "calico"},
			PodCIDR:     "100.96.0.0/11",
			ServiceCIDR: "100.64.0.0/13",
		},
	}
}

func validDNSRecord(ns string) *extensionsv1alpha1.DNSRecord {
	return &extensionsv1alpha1.DNSRecord{
		ObjectMeta: metav1.ObjectMeta{Name: "shoot1-internal", Namespace: ns},
		Spec: extensionsv1alpha1.DNSRecordSpec{
			DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: "aws-route53", Class: ptr.To(extensionsv1alpha1.ExtensionClass("shoot"))},
			SecretRef:   corev1.SecretReference{Name: "dnsrecord-shoot1-internal"},
			Name:        "api.shoot1.internal.example.com",
			RecordType:  "A",
			Values:      []string{"192.0.2.34"},
		},
	}
}

// TestSchemaRefuses checks that the generated schema refuses what Gardener's refuses, naming the
// field. mutate, when set, is applied to the created object and sent as an update.
func TestSchemaRefuses(t *testing.T) {
	tests := []struct {
		name string
		// create returns the object to create.
		create func(ns string) client.Object
		// mutate turns the created object into the refused update; nil means the create is refused.
		mutate func(client.Object)
		// status sends the mutation through the status subresource.
		status bool
		want   []metav1.StatusCause
	}{
		{
			name: "DNSRecord with an unsupported record type",
			create: func(ns string) client.Object {
				d := validDNSRecord(ns)
				d.Spec.RecordType = "MX"
				return d
			},
			want: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.recordType"}, skippedRules},
		},
		{
			name: "Network with an unknown IP family",
			create: func(ns string) client.Object {
				n := validNetwork(ns)
				n.Spec.IPFamilies = []gardencorev1beta1.IPFamily{"IPv5"}
				return n
			},
			want: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.ipFamilies[0]"}, skippedRules},
		},
		{
			name:   "DNSRecord class changed",
			create: func(ns string) client.Object { return validDNSRecord(ns) },
			mutate: func(o client.Object) {
				o.(*extensionsv1alpha1.DNSRecord).Spec.Class = ptr.To(extensionsv1alpha1.ExtensionClass("seed"))
			},
			want: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec"}},
		},
		{
			name:   "DNSRecord class removed",
			create: func(ns string) client.Object { return validDNSRecord(ns) },
			mutate: func(o client.Object) { o.(*extensionsv1alpha1.DNSRecord).Spec.Class = nil },
			want:   []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec"}},
		},
		{
			name:   "DNSRecord name changed",
			create: func(ns string) client.Object { return validDNSRecord(ns) },
			mutate: func(o client.Object) { o.(*extensionsv1alpha1.DNSRecord).Spec.Name = "api.other.example.com" },
			want:   []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.name"}},
		},
		{
			name:   "DNSRecord record type changed",
			create: func(ns string) client.Object { return validDNSRecord(ns) },
			mutate: func(o client.Object) { o.(*extensionsv1alpha1.DNSRecord).Spec.RecordType = "AAAA" },
			want:   []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.recordType"}},
		},
		{
			name:   "Network status with progress above 100",
			create: func(ns string) client.Object { return validNetwork(ns) },
			mutate: func(o client.Object) {
				o.(*extensionsv1alpha1.Network).Status.LastOperation = &gardencorev1beta1.LastOperation{
					Description: "x", LastUpdateTime: at(1), Progress: 101, State: "Processing", Type: "Reconcile",
				}
			},
			status: true,
			want:   []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "status.lastOperation.progress"}},
		},
		{
			name:   "Network status with an unknown operation state",
			create: func(ns string) client.Object { return validNetwork(ns) },
			mutate: func(o client.Object) {
				o.(*extensionsv1alpha1.Network).Status.LastOperation = &gardencorev1beta1.LastOperation{
					Description: "x", LastUpdateTime: at(1), Progress: 1, State: "Done", Type: "Reconcile",
				}
			},
			status: true,
			want:   []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueNotSupported, Field: "status.lastOperation.state"}, skippedRules},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			ns := newNamespace(t)
			obj := tt.create(ns)
			err := cl.Create(ctx, obj)
			if tt.mutate != nil {
				if err != nil {
					t.Fatalf("create of the valid object: %v", err)
				}
				tt.mutate(obj)
				if tt.status {
					err = cl.Status().Update(ctx, obj)
				} else {
					err = cl.Update(ctx, obj)
				}
			}
			assertInvalid(t, err, tt.want)
		})
	}
}

// TestSchemaRequiresKeys sends objects without required keys, which typed Go objects cannot express
// (they always write them), as raw server-side apply bodies.
func TestSchemaRequiresKeys(t *testing.T) {
	tests := []struct {
		name string
		body string
		obj  client.Object
		want []metav1.StatusCause
	}{
		{
			name: "Network without spec keys",
			obj:  &extensionsv1alpha1.Network{},
			body: `{"apiVersion":"extensions.gardener.cloud/v1alpha1","kind":"Network","metadata":{"name":"x"},"spec":{"type":"calico"}}`,
			want: []metav1.StatusCause{
				{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.podCIDR"},
				{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.serviceCIDR"},
				skippedRules,
			},
		},
		{
			name: "DNSRecord without secretRef and values",
			obj:  &extensionsv1alpha1.DNSRecord{},
			body: `{"apiVersion":"extensions.gardener.cloud/v1alpha1","kind":"DNSRecord","metadata":{"name":"x"},"spec":{"type":"aws-route53","name":"api.example.com","recordType":"A"}}`,
			want: []metav1.StatusCause{
				{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.secretRef"},
				{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.values"},
				skippedRules,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := newNamespace(t)
			tt.obj.SetNamespace(ns)
			tt.obj.SetName("x")
			// Server-side apply of raw JSON creates the object from exactly these keys.
			err := cl.Patch(context.Background(), tt.obj, client.RawPatch("application/apply-patch+yaml", []byte(tt.body)), client.FieldOwner("test"))
			assertInvalid(t, err, tt.want)
		})
	}
}

func assertInvalid(t *testing.T, err error, want []metav1.StatusCause) {
	t.Helper()
	if err == nil {
		t.Fatal("the server accepted the object, want it refused")
	}
	if !apierrors.IsInvalid(err) {
		t.Fatalf("error is not Invalid: %v", err)
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Details == nil {
		t.Fatalf("error carries no causes: %v", err)
	}
	got := make([]metav1.StatusCause, 0, len(se.ErrStatus.Details.Causes))
	for _, c := range se.ErrStatus.Details.Causes {
		got = append(got, metav1.StatusCause{Type: c.Type, Field: c.Field})
	}
	sortCauses := cmpopts.SortSlices(func(a, b metav1.StatusCause) bool { return a.Field < b.Field })
	if diff := cmp.Diff(want, got, sortCauses); diff != "" {
		t.Errorf("causes (-want +got):\n%s\nfull error: %v", diff, err)
	}
}
