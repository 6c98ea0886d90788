package crds

import (
	"strings"
	"testing"
)

// TestCluster: the embedded CRD decodes, is cluster-scoped, serves v1alpha1 with a status
// subresource, and carries the rules the API server checks (the name, whisker needs goldmane, the
// CIDRs).
func TestCluster(t *testing.T) {
	crd, err := Cluster()
	if err != nil {
		t.Fatal(err)
	}
	if crd.Name != "clusters.standalone.calico-pilot.dev" || crd.Spec.Scope != "Cluster" || len(crd.Spec.Versions) != 1 {
		t.Fatalf("CRD %s, scope %s, %d versions", crd.Name, crd.Spec.Scope, len(crd.Spec.Versions))
	}
	v := crd.Spec.Versions[0]
	if v.Name != "v1alpha1" || v.Subresources == nil || v.Subresources.Status == nil {
		t.Errorf("version %s, subresources %+v", v.Name, v.Subresources)
	}
	root := v.Schema.OpenAPIV3Schema
	var rules []string
	for _, r := range root.XValidations {
		rules = append(rules, r.Rule)
	}
	for _, r := range root.Properties["components"].XValidations {
		rules = append(rules, r.Rule)
	}
	for _, r := range root.Properties["cluster"].Properties["podCIDR"].XValidations {
		rules = append(rules, r.Rule)
	}
	joined := strings.Join(rules, "\n")
	for _, want := range []string{"self.metadata.name == 'default'", "self.goldmane.enabled", "isCIDR"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the CRD's rules lack %q:\n%s", want, joined)
		}
	}
	if p := root.Properties["networkConfig"]; p.XPreserveUnknownFields == nil || !*p.XPreserveUnknownFields {
		t.Errorf("networkConfig does not preserve unknown fields: %+v", p)
	}
}
