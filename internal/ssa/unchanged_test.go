package ssa_test

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/calico-pilot/calico-pilot/internal/ssa"
)

// liveConfigMap is a ConfigMap as the API server keeps it after calico-pilot applied data.a and
// label app, and kubectl edit (an update) added data.b and label team.
const liveConfigMap = `{
  "apiVersion": "v1", "kind": "ConfigMap",
  "metadata": {
    "name": "cm", "namespace": "kube-system", "uid": "0b5c3f2e-1111-4d5e-9a7b-123456789abc",
    "resourceVersion": "42", "creationTimestamp": "2026-01-02T03:04:05Z",
    "labels": {"app": "calico", "team": "net"},
    "managedFields": [
      {"manager": "calico-pilot", "operation": "Apply", "apiVersion": "v1", "time": "2026-01-02T03:04:05Z",
       "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:a": {}}, "f:metadata": {"f:labels": {"f:app": {}}}}},
      {"manager": "kubectl-edit", "operation": "Update", "apiVersion": "v1", "time": "2026-01-02T03:05:00Z",
       "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:b": {}}, "f:metadata": {"f:labels": {"f:team": {}}}}}
    ]
  },
  "data": {"a": "1", "b": "2"}
}`

func TestUnchanged(t *testing.T) {
	cmp, err := ssa.NewComparer()
	if err != nil {
		t.Fatal(err)
	}
	live := object(t, liveConfigMap)
	rendered := func(data, labels string) *unstructured.Unstructured {
		return object(t, `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "kube-system", "labels": `+labels+`}, "data": `+data+`}`)
	}
	for _, tc := range []struct {
		name      string
		rendered  *unstructured.Unstructured
		live      *unstructured.Unstructured
		manager   string
		unchanged bool
		// reason is a part of the reason.
		reason string
	}{
		{name: "as applied; the editor's extra fields stay", rendered: rendered(`{"a": "1"}`, `{"app": "calico"}`), live: live, manager: "calico-pilot", unchanged: true},
		{name: "a value changed", rendered: rendered(`{"a": "9"}`, `{"app": "calico"}`), live: live, manager: "calico-pilot", reason: "would change .data.a"},
		{name: "a label no longer rendered", rendered: rendered(`{"a": "1"}`, `{}`), live: live, manager: "calico-pilot", reason: "calico-pilot no longer renders .metadata.labels.app"},
		{name: "a field another manager set, same value", rendered: rendered(`{"a": "1", "b": "2"}`, `{"app": "calico"}`), live: live, manager: "calico-pilot", reason: "calico-pilot would take on .data.b"},
		{name: "a field another manager set, other value", rendered: rendered(`{"a": "1", "b": "3"}`, `{"app": "calico"}`), live: live, manager: "calico-pilot", reason: "kubectl-edit (Update) would lose .data.b to calico-pilot"},
		{name: "another manager's first apply", rendered: rendered(`{"a": "1"}`, `{"app": "calico"}`), live: live, manager: "someone", reason: "someone has applied no v1 yet"},
		{name: "absent", rendered: rendered(`{"a": "1"}`, `{"app": "calico"}`), manager: "calico-pilot", reason: "does not exist"},
		{name: "no manager", rendered: rendered(`{"a": "1"}`, `{"app": "calico"}`), live: live, reason: "cannot tell: no field manager"},
		{name: "a field the schema does not know", rendered: object(t, `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "kube-system"}, "spec": {}}`), live: live, manager: "calico-pilot", reason: "cannot tell"},
		{
			name:     "a custom resource",
			rendered: object(t, `{"apiVersion": "crd.projectcalico.org/v1", "kind": "FelixConfiguration", "metadata": {"name": "default"}}`),
			live:     object(t, `{"apiVersion": "crd.projectcalico.org/v1", "kind": "FelixConfiguration", "metadata": {"name": "default"}}`),
			manager:  "calico-pilot", reason: "cannot tell: no schema for crd.projectcalico.org/v1, Kind=FelixConfiguration",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			unchanged, reason := cmp.Unchanged(tc.rendered, tc.live, tc.manager)
			if unchanged != tc.unchanged || !strings.Contains(reason, tc.reason) || (tc.unchanged && reason != "") {
				t.Errorf("Unchanged = %v, %q; want %v, a reason with %q", unchanged, reason, tc.unchanged, tc.reason)
			}
		})
	}
}

// TestUnchangedNumbers: a rendered object decoded with encoding/json holds float64 numbers; the API
// server reads them as integers, so they equal live's int64.
func TestUnchangedNumbers(t *testing.T) {
	cmp, err := ssa.NewComparer()
	if err != nil {
		t.Fatal(err)
	}
	live := object(t, `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "kube-system",
	  "managedFields": [{"manager": "calico-pilot", "operation": "Apply", "apiVersion": "v1", "time": "2026-01-02T03:04:05Z", "fieldsType": "FieldsV1",
	    "fieldsV1": {"f:spec": {"f:ports": {"k:{\"port\":5473,\"protocol\":\"TCP\"}": {".": {}, "f:port": {}, "f:protocol": {}, "f:targetPort": {}}}}}}]},
	  "spec": {"ports": [{"port": 5473, "protocol": "TCP", "targetPort": 5473}], "clusterIP": "10.96.0.10", "type": "ClusterIP"}}`)
	rendered := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(`{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "kube-system"},
	  "spec": {"ports": [{"port": 5473, "protocol": "TCP", "targetPort": 5473}]}}`), &rendered.Object); err != nil {
		t.Fatal(err)
	}
	if ok, reason := cmp.Unchanged(rendered, live, "calico-pilot"); !ok {
		t.Errorf("judged changed: %s", reason)
	}
	rendered.Object["spec"].(map[string]any)["ports"].([]any)[0].(map[string]any)["targetPort"] = "calico-typha"
	if ok, reason := cmp.Unchanged(rendered, live, "calico-pilot"); ok || !strings.Contains(reason, "would change") {
		t.Errorf("a named target port for a numbered one: Unchanged = %v, %q", ok, reason)
	}
}

// object decodes JSON as the API machinery does (integers as int64).
func object(t *testing.T, s string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(s)); err != nil {
		t.Fatal(err)
	}
	return u
}
