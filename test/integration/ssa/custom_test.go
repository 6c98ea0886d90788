package ssa

import (
	"context"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/calico-pilot/calico-pilot/internal/ssa"
)

// TestCustomResources: a Comparer given the rendered CRDs judges Calico's custom resources by their
// schemas as the API server does (a GlobalNetworkSet, the kind render writes for the
// kube-apiserver's addresses); one without them cannot tell.
func TestCustomResources(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	objs := render(t, variants()[0])
	e.applyAll(ctx, t, objs)
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, u := range objs {
		if u.GetKind() != "CustomResourceDefinition" {
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd); err != nil {
			t.Fatal(err)
		}
		crds = append(crds, crd)
	}
	cmp, err := ssa.NewComparer(crds...)
	if err != nil {
		t.Fatal(err)
	}
	set := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "crd.projectcalico.org/v1", "kind": "GlobalNetworkSet",
		"metadata": map[string]any{"name": "ssa-test", "labels": map[string]any{"role": "kube-apiserver"}},
		"spec":     map[string]any{"nets": []any{"192.0.2.34/32", "198.51.100.0/24"}},
	}}
	if _, err := e.apply(ctx, set, manager); err != nil {
		t.Fatal(err)
	}
	live, err := e.get(ctx, set)
	if err != nil {
		t.Fatal(err)
	}
	if ok, reason := e.cmp.Unchanged(set, live, manager); ok || reason == "" {
		t.Errorf("without the CRDs: Unchanged = %v, %q; want changed, cannot tell", ok, reason)
	}
	withCRDs := &env{c: e.c, cmp: cmp}
	withCRDs.check(ctx, t, "as applied", set, true)
	fewer := set.DeepCopy()
	if err := unstructured.SetNestedStringSlice(fewer.Object, []string{"192.0.2.34/32"}, "spec", "nets"); err != nil {
		t.Fatal(err)
	}
	withCRDs.check(ctx, t, "rendered net removed", fewer, false)
	withCRDs.restore(ctx, t, set)
	withCRDs.editCases(ctx, t, set)
}
