package v1alpha1_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
)

// managedResourceJSON uses every key of docs/gardener-api-types.md section 1.4.
const managedResourceJSON = `{
  "apiVersion": "resources.gardener.cloud/v1alpha1",
  "kind": "ManagedResource",
  "metadata": {"name": "extension-networking-calico-config", "namespace": "shoot--proj--shoot1", "labels": {"origin": "calico-pilot"}, "annotations": {"reference.resources.gardener.cloud/secret-0123abcd": "managedresource-extension-networking-calico-config-0123abcd"}},
  "spec": {
    "class": "seed",
    "secretRefs": [{"name": "managedresource-extension-networking-calico-config-0123abcd"}],
    "injectLabels": {"shoot.gardener.cloud/no-cleanup": "true"},
    "forceOverwriteLabels": false,
    "forceOverwriteAnnotations": true,
    "keepObjects": false,
    "equivalences": [[{"group": "extensions", "kind": "Ingress"}, {"group": "networking.k8s.io", "kind": "Ingress"}]],
    "deletePersistentVolumeClaims": true
  },
  "status": {
    "conditions": [{"type": "ResourcesApplied", "status": "True", "lastTransitionTime": "2026-12-02T10:00:00Z", "lastUpdateTime": "2026-12-02T10:00:00Z", "reason": "ApplySucceeded", "message": "All resources are applied."}],
    "observedGeneration": 2,
    "resources": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "calico-node", "namespace": "kube-system", "labels": {"k8s-app": "calico-node"}, "annotations": {"a": "b"}}],
    "secretsDataChecksum": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
  }
}`

func TestWireRoundTrip(t *testing.T) {
	var mr resourcesv1alpha1.ManagedResource
	dec := json.NewDecoder(bytes.NewReader([]byte(managedResourceJSON)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&mr); err != nil {
		t.Fatalf("strict decode: %v", err)
	}
	out, err := json.Marshal(&mr)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	var want, got map[string]any
	if err := json.Unmarshal([]byte(managedResourceJSON), &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("re-encoded ManagedResource differs from the wire document (-want +got):\n%s", diff)
	}
}

// TestZeroValueKeys pins that spec.secretRefs and both structs are always written.
func TestZeroValueKeys(t *testing.T) {
	out, err := json.Marshal(&resourcesv1alpha1.ManagedResource{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{},"spec":{"secretRefs":null},"status":{}}`
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("zero ManagedResource encodes differently (-want +got):\n%s", diff)
	}
}
