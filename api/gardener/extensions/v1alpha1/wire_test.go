package v1alpha1_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

// The documents below use every key of docs/gardener-api-types.md sections 1.1-1.3 and 1.5. Decoding
// them strictly proves each key has a field; re-encoding them unchanged proves the names and
// omitempty choices match the wire.
const networkJSON = `{
  "apiVersion": "extensions.gardener.cloud/v1alpha1",
  "kind": "Network",
  "metadata": {"name": "shoot1", "namespace": "shoot--proj--shoot1"},
  "spec": {
    "type": "calico",
    "class": "shoot",
    "providerConfig": {"apiVersion": "calico.networking.extensions.gardener.cloud/v1alpha1", "kind": "NetworkConfig", "overlay": {"enabled": false}},
    "podCIDR": "100.96.0.0/11",
    "serviceCIDR": "100.64.0.0/13",
    "ipFamilies": ["IPv4", "IPv6"]
  },
  "status": {
    "providerStatus": {"apiVersion": "calico.networking.extensions.gardener.cloud/v1alpha1", "kind": "NetworkStatus"},
    "conditions": [{"type": "KubeAPIServerGlobalNetworkSet", "status": "False", "lastTransitionTime": "2026-12-02T10:00:00Z", "lastUpdateTime": "2026-12-02T10:05:00Z", "reason": "AddressesUnavailable", "message": "no record", "codes": ["ERR_RETRYABLE_CONFIGURATION_PROBLEM"]}],
    "lastError": {"description": "Error reconciling Network: boom", "taskID": "deploy", "codes": ["ERR_CONFIGURATION_PROBLEM"], "lastUpdateTime": "2026-12-02T10:05:00Z"},
    "lastOperation": {"description": "Reconciling the Network", "lastUpdateTime": "2026-12-02T10:05:00Z", "progress": 50, "state": "Error", "type": "Reconcile"},
    "observedGeneration": 3,
    "state": {"anything": ["kept", 1, true]},
    "resources": [{"name": "ref", "resourceRef": {"kind": "Secret", "name": "s1", "apiVersion": "v1"}}],
    "ipFamilies": ["IPv4"]
  }
}`

const clusterJSON = `{
  "apiVersion": "extensions.gardener.cloud/v1alpha1",
  "kind": "Cluster",
  "metadata": {"name": "shoot--proj--shoot1", "annotations": {"generic-token-kubeconfig.secret.gardener.cloud/name": "generic-token-kubeconfig-abc"}},
  "spec": {
    "cloudProfile": {"apiVersion": "core.gardener.cloud/v1beta1", "kind": "CloudProfile", "spec": {"type": "aws"}},
    "seed": {"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Seed", "spec": {"provider": {"type": "aws"}}},
    "shoot": {"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot", "spec": {"futureField": {"x": 1}}, "status": {"hibernated": false}}
  },
  "status": {}
}`

const dnsRecordJSON = `{
  "apiVersion": "extensions.gardener.cloud/v1alpha1",
  "kind": "DNSRecord",
  "metadata": {"name": "shoot1-external", "namespace": "shoot--proj--shoot1", "labels": {"role": "external", "gardener.cloud/role": "controlplane"}},
  "spec": {
    "type": "aws-route53",
    "class": "shoot",
    "providerConfig": {"foo": "bar"},
    "secretRef": {"name": "dnsrecord-shoot1-external", "namespace": "shoot--proj--shoot1"},
    "region": "eu-west-1",
    "zone": "Z123",
    "name": "api.shoot1.proj.example.com",
    "recordType": "CNAME",
    "values": ["lb-123.elb.example.com"],
    "ttl": 60
  },
  "status": {
    "conditions": [{"type": "Created", "status": "True", "lastTransitionTime": "2026-12-02T10:00:00Z", "lastUpdateTime": "2026-12-02T10:00:00Z", "reason": "", "message": ""}],
    "lastOperation": {"description": "Successfully reconciled DNSRecord", "lastUpdateTime": "2026-12-02T10:05:00Z", "progress": 100, "state": "Succeeded", "type": "Create"},
    "observedGeneration": 1,
    "zone": "Z123"
  }
}`

func TestWireRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		obj  any
	}{
		{name: "Network", doc: networkJSON, obj: &extensionsv1alpha1.Network{}},
		{name: "Cluster", doc: clusterJSON, obj: &extensionsv1alpha1.Cluster{}},
		{name: "DNSRecord", doc: dnsRecordJSON, obj: &extensionsv1alpha1.DNSRecord{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dec := json.NewDecoder(bytes.NewReader([]byte(tt.doc)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(tt.obj); err != nil {
				t.Fatalf("strict decode: %v", err)
			}
			out, err := json.Marshal(tt.obj)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			var want, got map[string]any
			if err := json.Unmarshal([]byte(tt.doc), &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			// Older apimachinery versions add creationTimestamp: null; it is not part of the contract.
			delete(got["metadata"].(map[string]any), "creationTimestamp")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("re-encoded %s differs from the wire document (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

// TestZeroValueKeys pins which keys are always written: Gardener's Network has no omitempty on
// status, and the required spec and LastOperation keys are written even when empty.
func TestZeroValueKeys(t *testing.T) {
	tests := []struct {
		name string
		obj  any
		want string
	}{
		{
			name: "Network",
			obj:  &extensionsv1alpha1.Network{},
			want: `{"metadata":{},"spec":{"type":"","podCIDR":"","serviceCIDR":""},"status":{}}`,
		},
		{
			name: "DNSRecord",
			obj:  &extensionsv1alpha1.DNSRecord{},
			want: `{"metadata":{},"spec":{"type":"","secretRef":{},"name":"","recordType":"","values":null},"status":{}}`,
		},
		{
			name: "LastOperation",
			obj:  &gardencorev1beta1.LastOperation{},
			want: `{"description":"","lastUpdateTime":null,"progress":0,"state":"","type":""}`,
		},
		{
			name: "Condition",
			obj:  &gardencorev1beta1.Condition{},
			want: `{"type":"","status":"","lastTransitionTime":null,"lastUpdateTime":null,"reason":"","message":""}`,
		},
		{
			name: "LastError",
			obj:  &gardencorev1beta1.LastError{},
			want: `{"description":""}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := json.Marshal(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(out)); diff != "" {
				t.Errorf("zero %s encodes differently (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}
