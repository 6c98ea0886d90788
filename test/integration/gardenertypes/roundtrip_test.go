package gardenertypes

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
)

// rawJSON compares raw extensions by their JSON meaning: the API server re-serialises them (key
// order, spacing), which is not a difference on the wire.
var rawJSON = cmp.Transformer("rawJSON", func(r runtime.RawExtension) any {
	if len(r.Raw) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(r.Raw, &v); err != nil {
		return "invalid JSON: " + err.Error()
	}
	return v
})

func raw(s string) *runtime.RawExtension { return &runtime.RawExtension{Raw: []byte(s)} }

// at is a second-precision time, as the API server stores metav1.Time.
func at(minute int) metav1.Time {
	return metav1.NewTime(time.Date(2026, 12, 2, 10, minute, 0, 0, time.UTC))
}

// roundTrip is one kind's trip through the API server.
type roundTrip struct {
	name string
	// newObj returns the object with its spec (and no status) in namespace ns.
	newObj func(ns string) client.Object
	// empty returns an empty object of the kind to read into.
	empty func() client.Object
	// setStatus writes the status the test sends through the status subresource.
	setStatus func(client.Object)
	// clearStatus empties the status in memory.
	clearStatus func(client.Object)
	// parts returns spec and status for comparison.
	parts func(client.Object) (spec, status any)
}

func TestRoundTripSpecAndStatus(t *testing.T) {
	tests := []roundTrip{
		{
			name: "Network",
			newObj: func(ns string) client.Object {
				return &extensionsv1alpha1.Network{
					ObjectMeta: metav1.ObjectMeta{Name: "shoot1", Namespace: ns},
					Spec: extensionsv1alpha1.NetworkSpec{
						DefaultSpec: extensionsv1alpha1.DefaultSpec{
							Type:           "calico",
							Class:          ptr.To(extensionsv1alpha1.ExtensionClass("shoot")),
							ProviderConfig: raw(`{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkConfig","overlay":{"enabled":false}}`),
						},
						PodCIDR:     "100.96.0.0/11",
						ServiceCIDR: "100.64.0.0/13",
						IPFamilies:  []gardencorev1beta1.IPFamily{"IPv4", "IPv6"},
					},
				}
			},
			empty: func() client.Object { return &extensionsv1alpha1.Network{} },
			setStatus: func(o client.Object) {
				o.(*extensionsv1alpha1.Network).Status = extensionsv1alpha1.NetworkStatus{
					DefaultStatus: extensionsv1alpha1.DefaultStatus{
						ProviderStatus: raw(`{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkStatus","overlayEnabled":false}`),
						Conditions: []gardencorev1beta1.Condition{{
							Type: "KubeAPIServerGlobalNetworkSet", Status: "True", LastTransitionTime: at(1), LastUpdateTime: at(2),
							Reason: "Published", Message: "The set holds 192.0.2.34.", Codes: []gardencorev1beta1.ErrorCode{"ERR_RETRYABLE_CONFIGURATION_PROBLEM"},
						}},
						LastError: &gardencorev1beta1.LastError{
							Description: "Error reconciling Network: boom", TaskID: ptr.To("task"),
							Codes: []gardencorev1beta1.ErrorCode{"ERR_CONFIGURATION_PROBLEM"}, LastUpdateTime: ptr.To(at(3)),
						},
						LastOperation: &gardencorev1beta1.LastOperation{
							Description: "Reconciling the Network", LastUpdateTime: at(4), Progress: 1, State: "Processing", Type: "Reconcile",
						},
						ObservedGeneration: 1,
						State:              raw(`{"opaque":[1,"two",{"three":true}]}`),
						Resources: []extensionsv1alpha1.NamedResourceReference{{
							Name: "ref", ResourceRef: autoscalingv1.CrossVersionObjectReference{APIVersion: "v1", Kind: "Secret", Name: "s1"},
						}},
					},
					IPFamilies: []gardencorev1beta1.IPFamily{"IPv4"},
				}
			},
			clearStatus: func(o client.Object) { o.(*extensionsv1alpha1.Network).Status = extensionsv1alpha1.NetworkStatus{} },
			parts: func(o client.Object) (any, any) {
				n := o.(*extensionsv1alpha1.Network)
				return n.Spec, n.Status
			},
		},
		{
			name: "Cluster",
			newObj: func(ns string) client.Object {
				// Cluster is cluster-scoped and named after a control-plane namespace.
				return &extensionsv1alpha1.Cluster{
					ObjectMeta: metav1.ObjectMeta{Name: ns},
					Spec: extensionsv1alpha1.ClusterSpec{
						CloudProfile: *raw(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"CloudProfile","spec":{"type":"aws"}}`),
						Seed:         raw(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Seed","spec":{"provider":{"type":"aws","region":"eu-west-1"}}}`),
						Shoot:        *raw(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Shoot","metadata":{"name":"shoot1"},"spec":{"notModelledByUs":{"deep":[1,2]}},"status":{"hibernated":false,"technicalID":"shoot--proj--shoot1"}}`),
					},
				}
			},
			empty:       func() client.Object { return &extensionsv1alpha1.Cluster{} },
			setStatus:   func(client.Object) {},
			clearStatus: func(client.Object) {},
			parts: func(o client.Object) (any, any) {
				c := o.(*extensionsv1alpha1.Cluster)
				return c.Spec, c.Status
			},
		},
		{
			name: "DNSRecord",
			newObj: func(ns string) client.Object {
				return &extensionsv1alpha1.DNSRecord{
					ObjectMeta: metav1.ObjectMeta{Name: "shoot1-external", Namespace: ns, Labels: map[string]string{"role": "external", "gardener.cloud/role": "controlplane"}},
					Spec: extensionsv1alpha1.DNSRecordSpec{
						DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: "aws-route53"},
						SecretRef:   corev1.SecretReference{Name: "dnsrecord-shoot1-external", Namespace: ns},
						Region:      ptr.To("eu-west-1"),
						Zone:        ptr.To("Z0123"),
						Name:        "api.shoot1.proj.example.com",
						RecordType:  "CNAME",
						Values:      []string{"lb-1.elb.example.com"},
						TTL:         ptr.To(int64(60)),
					},
				}
			},
			empty: func() client.Object { return &extensionsv1alpha1.DNSRecord{} },
			setStatus: func(o client.Object) {
				o.(*extensionsv1alpha1.DNSRecord).Status = extensionsv1alpha1.DNSRecordStatus{
					DefaultStatus: extensionsv1alpha1.DefaultStatus{
						Conditions: []gardencorev1beta1.Condition{{Type: "Created", Status: "True", LastTransitionTime: at(5), LastUpdateTime: at(5)}},
						LastOperation: &gardencorev1beta1.LastOperation{
							Description: "Successfully reconciled DNSRecord", LastUpdateTime: at(6), Progress: 100, State: "Succeeded", Type: "Create",
						},
						ObservedGeneration: 1,
					},
					Zone: ptr.To("Z0123"),
				}
			},
			clearStatus: func(o client.Object) { o.(*extensionsv1alpha1.DNSRecord).Status = extensionsv1alpha1.DNSRecordStatus{} },
			parts: func(o client.Object) (any, any) {
				d := o.(*extensionsv1alpha1.DNSRecord)
				return d.Spec, d.Status
			},
		},
		{
			name: "ManagedResource",
			newObj: func(ns string) client.Object {
				return &resourcesv1alpha1.ManagedResource{
					ObjectMeta: metav1.ObjectMeta{Name: "extension-networking-calico-config", Namespace: ns},
					Spec: resourcesv1alpha1.ManagedResourceSpec{
						Class:                        ptr.To("seed"),
						SecretRefs:                   []corev1.LocalObjectReference{{Name: "managedresource-extension-networking-calico-config-0123abcd"}},
						InjectLabels:                 map[string]string{"shoot.gardener.cloud/no-cleanup": "true"},
						ForceOverwriteLabels:         ptr.To(false),
						ForceOverwriteAnnotations:    ptr.To(true),
						KeepObjects:                  ptr.To(false),
						Equivalences:                 [][]metav1.GroupKind{{{Group: "extensions", Kind: "Ingress"}, {Group: "networking.k8s.io", Kind: "Ingress"}}},
						DeletePersistentVolumeClaims: ptr.To(true),
					},
				}
			},
			empty: func() client.Object { return &resourcesv1alpha1.ManagedResource{} },
			setStatus: func(o client.Object) {
				o.(*resourcesv1alpha1.ManagedResource).Status = resourcesv1alpha1.ManagedResourceStatus{
					Conditions: []gardencorev1beta1.Condition{
						{Type: "ResourcesApplied", Status: "True", LastTransitionTime: at(7), LastUpdateTime: at(7), Reason: "ApplySucceeded", Message: "All resources are applied."},
						{Type: "ResourcesHealthy", Status: "False", LastTransitionTime: at(8), LastUpdateTime: at(9), Reason: "DaemonSetUnhealthy", Message: "calico-node is not ready"},
					},
					ObservedGeneration: 1,
					Resources: []resourcesv1alpha1.ObjectReference{{
						ObjectReference: corev1.ObjectReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "calico-node", Namespace: "kube-system"},
						Labels:          map[string]string{"k8s-app": "calico-node"},
						Annotations:     map[string]string{"resources.gardener.cloud/origin": "shoot--proj--shoot1/extension-networking-calico-config"},
					}},
					SecretsDataChecksum: ptr.To("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
				}
			},
			clearStatus: func(o client.Object) {
				o.(*resourcesv1alpha1.ManagedResource).Status = resourcesv1alpha1.ManagedResourceStatus{}
			},
			parts: func(o client.Object) (any, any) {
				m := o.(*resourcesv1alpha1.ManagedResource)
				return m.Spec, m.Status
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			ns := newNamespace(t)

			obj := tt.newObj(ns)
			wantSpec, _ := tt.parts(tt.newObj(ns))
			_, emptyStatus := tt.parts(tt.empty())
			// A status sent with the create is dropped by the server: status is a subresource.
			tt.setStatus(obj)
			if err := cl.Create(ctx, obj); err != nil {
				t.Fatalf("create: %v", err)
			}
			got := tt.empty()
			if err := cl.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
				t.Fatalf("get after create: %v", err)
			}
			gotSpec, gotStatus := tt.parts(got)
			if diff := cmp.Diff(wantSpec, gotSpec, rawJSON); diff != "" {
				t.Errorf("spec after create (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(emptyStatus, gotStatus, rawJSON); diff != "" {
				t.Errorf("status after create should be empty, the create must not write it (-want +got):\n%s", diff)
			}

			// The status subresource stores every status field.
			tt.setStatus(got)
			_, wantStatus := tt.parts(got)
			if err := cl.Status().Update(ctx, got); err != nil {
				t.Fatalf("status update: %v", err)
			}
			afterStatus := tt.empty()
			if err := cl.Get(ctx, client.ObjectKeyFromObject(obj), afterStatus); err != nil {
				t.Fatalf("get after status update: %v", err)
			}
			gotSpec, gotStatus = tt.parts(afterStatus)
			if diff := cmp.Diff(wantSpec, gotSpec, rawJSON); diff != "" {
				t.Errorf("spec after status update (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantStatus, gotStatus, rawJSON); diff != "" {
				t.Errorf("status after status update (-want +got):\n%s", diff)
			}

			// A write of the main resource leaves the status alone.
			tt.clearStatus(afterStatus)
			afterStatus.SetAnnotations(map[string]string{"touched": "true"})
			if err := cl.Update(ctx, afterStatus); err != nil {
				t.Fatalf("main update: %v", err)
			}
			final := tt.empty()
			if err := cl.Get(ctx, client.ObjectKeyFromObject(obj), final); err != nil {
				t.Fatalf("get after main update: %v", err)
			}
			_, gotStatus = tt.parts(final)
			if diff := cmp.Diff(wantStatus, gotStatus, rawJSON); diff != "" {
				t.Errorf("status after a main-resource update must be unchanged (-want +got):\n%s", diff)
			}
			if final.GetAnnotations()["touched"] != "true" {
				t.Errorf("main update did not store the annotation: %v", final.GetAnnotations())
			}
		})
	}
}
