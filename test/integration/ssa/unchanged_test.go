package ssa

import (
	"context"
	"testing"
)

// TestRenderedObjectsAreUnchanged: after an apply, every rendered object is judged unchanged
// against what the API server holds, and a second apply of each leaves its resourceVersion as it
// was: the judgement is what the API server does. The variants run one after another on one
// control plane (cluster-wide objects and CRDs move from one variant to the next, as on a cluster
// whose layout or line changes).
func TestRenderedObjectsAreUnchanged(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, v := range variants() {
		t.Run(v.String(), func(t *testing.T) {
			objs := render(t, v)
			e.applyAll(ctx, t, objs)
			kinds := map[string]int{}
			for _, u := range objs {
				kinds[u.GetKind()]++
				live, err := e.get(ctx, u)
				if err != nil {
					t.Fatal(err)
				}
				if ok, reason := e.cmp.Unchanged(u, live, manager); !ok {
					t.Errorf("%s: judged changed right after its apply: %s", id(u), reason)
				}
				again, err := e.apply(ctx, u, manager)
				if err != nil {
					t.Fatal(err)
				}
				if again.GetResourceVersion() != live.GetResourceVersion() {
					t.Errorf("%s: a second apply wrote (resourceVersion %s -> %s): the API server did not see a no-op", id(u), live.GetResourceVersion(), again.GetResourceVersion())
				}
			}
			t.Logf("%d objects judged unchanged: %v", len(objs), kinds)
		})
	}
}
