package ssa

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// BenchmarkUnchanged judges the calico-node DaemonSet and the largest CRD against their live objects
// as the API server keeps them after an apply, beside a baseline: the naive judgement a JSON round
// trip of both and a recursive "every rendered field is in live" comparison give (which sees
// neither ownership nor what the apply would remove).
func BenchmarkUnchanged(b *testing.B) {
	e := newEnv(b)
	ctx := context.Background()
	v := variants()[0]
	objs := render(b, v)
	e.applyAll(ctx, b, objs)
	var node, crd *unstructured.Unstructured
	for _, u := range objs {
		switch {
		case u.GetKind() == "DaemonSet" && u.GetName() == v.layout.Workload(calicoversion.Node).Name:
			node = u
		case u.GetKind() == "CustomResourceDefinition" && (crd == nil || size(u) > size(crd)):
			crd = u
		}
	}
	if node == nil || crd == nil {
		b.Fatal("no calico-node DaemonSet or CRD rendered")
	}
	for _, u := range []*unstructured.Unstructured{node, crd} {
		live, err := e.get(ctx, u)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(u.GetKind()+"/"+u.GetName()+"/Unchanged", func(b *testing.B) {
			for b.Loop() {
				if ok, reason := e.cmp.Unchanged(u, live, manager); !ok {
					b.Fatal(reason)
				}
			}
		})
		b.Run(u.GetKind()+"/"+u.GetName()+"/json-round-trip-baseline", func(b *testing.B) {
			for b.Loop() {
				if !jsonSubset(b, u, live) {
					b.Fatal("baseline: rendered is not within live")
				}
			}
		})
	}
}

func size(u *unstructured.Unstructured) int {
	raw, _ := json.Marshal(u.Object)
	return len(raw)
}

// jsonSubset is the baseline: both objects through JSON, then every rendered value found in live.
func jsonSubset(b *testing.B, rendered, live *unstructured.Unstructured) bool {
	var r, l any
	for _, p := range []struct {
		from *unstructured.Unstructured
		to   *any
	}{{rendered, &r}, {live, &l}} {
		raw, err := json.Marshal(p.from.Object)
		if err != nil {
			b.Fatal(err)
		}
		if err := json.Unmarshal(raw, p.to); err != nil {
			b.Fatal(err)
		}
	}
	return within(r, l)
}

func within(r, l any) bool {
	switch r := r.(type) {
	case map[string]any:
		lm, ok := l.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range r {
			if !within(v, lm[k]) {
				return false
			}
		}
		return true
	case []any:
		ls, ok := l.([]any)
		if !ok || len(ls) != len(r) {
			return false
		}
		for i := range r {
			if !within(r[i], ls[i]) {
				return false
			}
		}
		return true
	case nil:
		return true
	}
	return reflect.DeepEqual(r, l)
}
