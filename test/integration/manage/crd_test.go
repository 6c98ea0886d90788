package manage

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/calico-pilot/calico-pilot/internal/manage"
)

// TestCRDRefusesWhatTheFileRefuses: the API server refuses, with the field and the file's words, a
// Cluster of another name, whisker without goldmane and facts of a wrong format.
func TestCRDRefusesWhatTheFileRefuses(t *testing.T) {
	cl := newCluster(t)
	if err := manage.EnsureCRD(context.Background(), cl.c, time.Minute); err != nil {
		t.Fatal(err)
	}
	head := "apiVersion: standalone.calico-pilot.dev/v1alpha1\nkind: Cluster\n"
	for _, tc := range []struct{ name, obj, want string }{
		{"another name", head + "metadata:\n  name: prod\n", "metadata.name must be default"},
		{"whisker without goldmane", head + "metadata:\n  name: default\ncomponents:\n  whisker: {enabled: true}\n", "components.whisker.enabled: Invalid value: whisker needs goldmane, where it reads its flows from: set components.goldmane.enabled: true, or components.whisker.enabled: false"},
		{"bad pod CIDR", head + "metadata:\n  name: default\ncluster:\n  podCIDR: 10.0.0.0/33\n", `cluster.podCIDR: Invalid value: "10.0.0.0/33": must be a CIDR, or two separated by a comma (one per IP family)`},
		{"three CIDRs", head + "metadata:\n  name: default\ncluster:\n  serviceCIDR: 10.0.0.0/16,fd00::/108,10.1.0.0/16\n", "cluster.serviceCIDR: Invalid value: \"10.0.0.0/16,fd00::/108,10.1.0.0/16\": must be a CIDR"},
		{"bad family", head + "metadata:\n  name: default\ncluster:\n  ipFamilies: [IPv5]\n", "cluster.ipFamilies[0]: Unsupported value: \"IPv5\""},
		{"bad proxy mode", head + "metadata:\n  name: default\ncluster:\n  kubeProxy: {mode: iptables}\n", "cluster.kubeProxy.mode: Unsupported value: \"iptables\""},
		{"bad version", head + "metadata:\n  name: default\ncluster:\n  kubernetesVersion: \"1.34\"\n", "cluster.kubernetesVersion: Invalid value: \"1.34\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := createRaw(cl, tc.obj)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("creating %s: %v, want an error with %q", tc.name, err, tc.want)
			}
		})
	}
	if err := createRaw(cl, head+"metadata:\n  name: default\ncomponents:\n  goldmane: {enabled: true}\n  whisker: {enabled: true}\ncluster:\n  podCIDR: 10.244.0.0/16,fd00:10::/56\n  ipFamilies: [IPv4, IPv6]\n"); err != nil {
		t.Errorf("a valid Cluster: %v", err)
	}
}

// createRaw creates the object of a YAML document as written (no typed round trip).
func createRaw(cl *cluster, doc string) error {
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		return err
	}
	return cl.c.Create(context.Background(), u)
}
