package seedstate

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAssembleFromObjects(t *testing.T) {
	o := &Objects{}
	add := func(kind, raw string) {
		t.Helper()
		if ok, err := o.Add(kind, []byte(raw)); err != nil || !ok {
			t.Fatalf("Add(%s) = %t, %v", kind, ok, err)
		}
	}
	add("Network", `{"metadata":{"name":"a","namespace":"shoot--p--a"},"spec":{"type":"calico"}}`)
	add("Network", `{"metadata":{"name":"b","namespace":"shoot--p--b"},"spec":{"type":"calico"}}`)
	add("Network", `{"metadata":{"name":"c","namespace":"shoot--p--c"},"spec":{"type":"cilium"}}`)
	add("Cluster", `{"metadata":{"name":"shoot--p--a"},"spec":{"shoot":{"metadata":{"name":"a","namespace":"garden-p"}}}}`)
	add("ManagedResource", `{"metadata":{"name":"mr","namespace":"shoot--p--a"},"spec":{"secretRefs":[{"name":"s1"},{"name":"s2"},{"name":"gone"}]}}`)
	add("Secret", `{"metadata":{"name":"s1","namespace":"shoot--p--a"},"data":{"config.yaml":"b2xk","x":"eA=="}}`)
	add("Secret", `{"metadata":{"name":"s2","namespace":"shoot--p--a"},"data":{"config.yaml":"bmV3"}}`)
	if ok, err := o.Add("ConfigMap", []byte(`{}`)); ok || err != nil {
		t.Errorf("Add(ConfigMap) = %t, %v; want skipped", ok, err)
	}

	shoots, err := Assemble(context.Background(), o, "calico", "mr")
	if err != nil {
		t.Fatal(err)
	}
	if len(shoots) != 2 {
		t.Fatalf("got %d shoots, want the 2 calico ones", len(shoots))
	}
	a, b := shoots[0], shoots[1]
	if a.Shoot == nil || a.Shoot.Name != "a" {
		t.Errorf("shoot a: embedded Shoot %+v", a.Shoot)
	}
	// A later secret's keys win, as the resource manager applies the secrets in turn.
	if diff := cmp.Diff(map[string][]byte{"config.yaml": []byte("new"), "x": []byte("x")}, a.Deployed); diff != "" {
		t.Errorf("deployed data (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"ManagedResource mr refers to Secret gone, which does not exist"}, a.Problems); diff != "" {
		t.Errorf("shoot a problems (-want +got):\n%s", diff)
	}
	if b.Shoot != nil || b.Deployed != nil || b.ManagedResource != nil {
		t.Errorf("shoot b: %+v, want no Cluster and no ManagedResource", b)
	}
	if diff := cmp.Diff([]string{"no Cluster shoot--p--b"}, b.Problems); diff != "" {
		t.Errorf("shoot b problems (-want +got):\n%s", diff)
	}
}
