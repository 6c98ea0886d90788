package controller

import (
	"context"
	"testing"

	"k8s.io/utils/ptr"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

// TestIgnoreOperationAnnotation: with --ignore-operation-annotation a Network is reconciled on
// creation, on every spec change and on every change of its Cluster, without any annotation.
func TestIgnoreOperationAnnotation(t *testing.T) {
	e := newTestEnv(t, nil)
	e.createDNSRecord("internal", "A", "192.0.2.34")
	srv := startDNS(t)
	log := startController(t, e.ns, controllerSetup{ignoreOperationAnnotation: true, dnsServer: srv.addr})
	n := &extensionsv1alpha1.Network{}
	n.Namespace, n.Name = e.ns, networkName
	n.Spec.Type = "calico"
	n.Spec.PodCIDR, n.Spec.ServiceCIDR = "100.96.0.0/11", "100.64.0.0/13"
	n.Spec.ProviderConfig = providerConfig(gnsOn)
	n.Spec.ProviderConfig.Raw = yamlToJSON(t, n.Spec.ProviderConfig.Raw)
	if err := e.c.Create(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	e.waitForOperation(log, nil, "Create", "Succeeded")
	if _, _, ok := e.globalNetworkSet(); !ok {
		t.Fatal("GlobalNetworkSet not stored")
	}

	// A spec change, no annotation.
	first := e.managedResource().Spec.SecretRefs[0].Name
	e.patchNetwork(func(n *extensionsv1alpha1.Network) {
		n.Spec.ProviderConfig.Raw = yamlToJSON(t, providerConfig(gnsOn+"typha:\n  enabled: false\n").Raw)
	})
	e.waitFor("a new secret after the spec change", func() (bool, error) {
		mr := e.managedResource()
		return mr != nil && mr.Spec.SecretRefs[0].Name != first, nil
	})

	// A Cluster change (the shoot goes to sleep), no annotation: the set is left out.
	shoot := baseShoot()
	shoot.Spec.Hibernation = &gardencorev1beta1.Hibernation{Enabled: ptr.To(true)}
	e.setShoot(shoot)
	e.waitFor("the GlobalNetworkSet to be left out after the Cluster changed", func() (bool, error) {
		_, _, ok := e.globalNetworkSet()
		return !ok, nil
	})
}
