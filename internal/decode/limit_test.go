package decode

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestNetworkConfigCapsErrors(t *testing.T) {
	for _, n := range []int{MaxErrors, MaxErrors + 1, 5_000} {
		var b strings.Builder
		// A duplicate, seen only by the decoder (which keeps the first 100 of its findings).
		b.WriteString(`{"vethMTU":"1","vethMTU":"2","apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkConfig"`)
		for i := range n {
			fmt.Fprintf(&b, `,"x%05d":1`, i)
		}
		b.WriteString(`}`)
		_, errs := NetworkConfig([]byte(b.String()), nil)
		if len(errs) != MaxErrors+1 {
			t.Fatalf("%d unknown fields: %d errors, want %d", n, len(errs), MaxErrors+1)
		}
		last := errs[MaxErrors]
		// n unknown fields and one duplicate, MaxErrors of them reported.
		wantPath := "<document>"
		if n == MaxErrors {
			wantPath = fmt.Sprintf("x%05d", n-1) // the one error not reported
		}
		want := fmt.Sprintf("%s: Too many: %d: more errors not reported (the first %d are)", wantPath, n+1-MaxErrors, MaxErrors)
		if last.Error() != want {
			t.Errorf("%d unknown fields: last error %q, want %q", n, last, want)
		}
	}
}

func TestTruncate(t *testing.T) {
	var errs field.ErrorList
	for i := range MaxErrors + 3 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "items").Index(i).Child("name"), "", "bad"))
	}
	got := Truncate(errs)
	if len(got) != MaxErrors+1 || got[MaxErrors].Field != "spec.items" || got[MaxErrors].Error() != "spec.items: Too many: 3: more errors not reported (the first 100 are)" {
		t.Fatalf("Truncate: %d errors, last %v", len(got), got[len(got)-1])
	}
	// A truncated list with further errors keeps its count.
	again := Truncate(append(field.ErrorList{field.Required(field.NewPath("spec"), "")}, got...))
	if len(again) != MaxErrors+1 || again[MaxErrors].BadValue != moreErrors(4) {
		t.Fatalf("Truncate twice: last %v", again[len(again)-1])
	}
	if short := Truncate(errs[:MaxErrors]); len(short) != MaxErrors {
		t.Errorf("Truncate of %d errors changed them", MaxErrors)
	}
	for _, c := range []struct{ a, b, want string }{
		{"spec.a", "spec.a", "spec.a"},
		{"spec.a", "spec.a.b", "spec.a"},
		{"spec.ab", "spec.ac", "spec"},
		{"spec.items[1]", "spec.items[12]", "spec.items"},
		{"a", "b", ""},
	} {
		if got := commonPath(c.a, c.b); got != c.want {
			t.Errorf("commonPath(%q, %q) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}
