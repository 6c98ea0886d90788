package controller

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

func yamlToJSON(t testing.TB, y []byte) []byte {
	t.Helper()
	j, err := yaml.YAMLToJSON(y)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestCreate: a new Network ends Succeeded with the ManagedResource, its immutable content-hashed
// secret holding the rendered manifest, the finalizer, the provider status and ipFamilies.
func TestCreate(t *testing.T) {
	e := newTestEnv(t, nil)
	log := startController(t, e.ns, controllerSetup{})
	e.createNetwork(providerConfig("overlay:\n  enabled: true\n"))
	n := e.waitForOperation(log, nil, "Create", "Succeeded")

	if n.Status.LastError != nil {
		t.Errorf("lastError = %+v, want none", n.Status.LastError)
	}
	if n.Status.ObservedGeneration != n.Generation {
		t.Errorf("observedGeneration = %d, want %d", n.Status.ObservedGeneration, n.Generation)
	}
	if got := n.Status.LastOperation; got.Progress != 100 || got.Description != "Successfully reconciled Network" {
		t.Errorf("lastOperation = %+v, want progress 100, description %q", got, "Successfully reconciled Network")
	}
	if !slices.Contains(n.Finalizers, "extensions.gardener.cloud/network") {
		t.Errorf("finalizers = %v, want extensions.gardener.cloud/network", n.Finalizers)
	}
	if diff := cmp.Diff([]gardencorev1beta1.IPFamily{"IPv4"}, n.Status.IPFamilies); diff != "" {
		t.Errorf("status.ipFamilies (-want +got):\n%s", diff)
	}
	var ps map[string]any
	if err := yaml.Unmarshal(n.Status.ProviderStatus.Raw, &ps); err != nil {
		t.Fatal(err)
	}
	wantPS := map[string]any{
		"apiVersion": "calico.networking.extensions.gardener.cloud/v1alpha1", "kind": "NetworkStatus",
		"overlayEnabled": true, "backend": "bird", "ipFamilies": []any{"IPv4"}, "compatibility": "Native",
		// A new shoot without pin or operator default runs the newest release of the catalogue's
		// default line (docs/upgrades.md).
		"calicoVersion": "v3.31.7", "calicoCRDVersion": "v3.31.7",
	}
	if diff := cmp.Diff(wantPS, ps); diff != "" {
		t.Errorf("providerStatus (-want +got):\n%s", diff)
	}

	mr := e.managedResource()
	if mr == nil {
		t.Fatal("ManagedResource extension-networking-calico-config not created")
	}
	if len(mr.Spec.SecretRefs) != 1 || !strings.HasPrefix(mr.Spec.SecretRefs[0].Name, "managedresource-extension-networking-calico-config-") {
		t.Fatalf("secretRefs = %v, want one managedresource-extension-networking-calico-config-<hash>", mr.Spec.SecretRefs)
	}
	secretName := mr.Spec.SecretRefs[0].Name
	if got := mr.Labels["origin"]; got != "extension-networking-calico" {
		t.Errorf("origin label = %q, want extension-networking-calico", got)
	}
	if mr.Spec.KeepObjects == nil || *mr.Spec.KeepObjects {
		t.Errorf("keepObjects = %v, want false", mr.Spec.KeepObjects)
	}
	if diff := cmp.Diff(map[string]string{"shoot.gardener.cloud/no-cleanup": "true"}, mr.Spec.InjectLabels); diff != "" {
		t.Errorf("injectLabels (-want +got):\n%s", diff)
	}
	refFound := false
	for k, v := range mr.Annotations {
		if strings.HasPrefix(k, "reference.resources.gardener.cloud/secret-") && v == secretName {
			refFound = true
		}
	}
	if !refFound {
		t.Errorf("annotations %v do not reference secret %s", mr.Annotations, secretName)
	}
	s := &corev1.Secret{}
	if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: e.ns, Name: secretName}, s); err != nil {
		t.Fatal(err)
	}
	if s.Immutable == nil || !*s.Immutable {
		t.Errorf("secret %s is not immutable", secretName)
	}
	if got := s.Labels["resources.gardener.cloud/garbage-collectable-reference"]; got != "true" {
		t.Errorf("secret label garbage-collectable-reference = %q, want true", got)
	}
	objs := e.manifest()
	for _, want := range []string{"DaemonSet/calico-node", "ConfigMap/calico-config", "IPPool/default-ipv4-ippool", "CustomResourceDefinition/ippools.crd.projectcalico.org"} {
		if _, ok := objs[want]; !ok {
			t.Errorf("stored manifest has no %s", want)
		}
	}
	if _, ok := objs["GlobalNetworkSet/gardener-kube-apiserver"]; ok {
		t.Error("stored manifest has the GlobalNetworkSet although it is not enabled")
	}

	// The seed monitoring objects are in the seed ManagedResource (class seed: the seed's resource
	// manager applies them), placed in the control-plane namespace; nothing is written directly.
	seedMR := e.seedManagedResource()
	if seedMR == nil || seedMR.Spec.Class == nil || *seedMR.Spec.Class != "seed" || seedMR.Labels["origin"] != "extension-networking-calico" {
		t.Fatalf("seed ManagedResource = %+v, want class seed and origin extension-networking-calico", seedMR)
	}
	if len(seedMR.Spec.InjectLabels) != 0 {
		t.Errorf("seed ManagedResource injects labels %v, want none (shoot.gardener.cloud/no-cleanup is for shoot objects)", seedMR.Spec.InjectLabels)
	}
	var seedObjs []string
	for id, obj := range e.seedManifest() {
		if ns := obj["metadata"].(map[string]any)["namespace"]; ns != e.ns {
			t.Errorf("seed object %s is in namespace %v, want %s", id, ns, e.ns)
		}
		seedObjs = append(seedObjs, id)
	}
	slices.Sort(seedObjs)
	if want := []string{"ConfigMap/calico-dashboards", "ScrapeConfig/shoot-calico-bird", "ScrapeConfig/shoot-calico-felix", "ScrapeConfig/shoot-calico-typha"}; !slices.Equal(seedObjs, want) {
		t.Errorf("seed ManagedResource objects = %v, want %v", seedObjs, want)
	}
	if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: e.ns, Name: "calico-dashboards"}, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Errorf("seed ConfigMap calico-dashboards written directly (%v): only the seed resource manager applies it", err)
	}

	// An event tells the shoot owner.
	e.waitFor("a NetworkReconciliation event", func() (bool, error) {
		var evs eventsv1.EventList
		if err := e.c.List(context.Background(), &evs, client.InNamespace(e.ns)); err != nil {
			return false, err
		}
		for _, ev := range evs.Items {
			if ev.Reason == "NetworkReconciliation" && ev.Regarding.Name == networkName && ev.Type == corev1.EventTypeNormal {
				return true, nil
			}
		}
		return false, nil
	})
}

// TestUpdateAndUnchanged: a changed providerConfig stores a new secret and removes the old one; an
// unchanged reconcile writes no Secret and no ManagedResource, only the lifecycle status.
func TestUpdateAndUnchanged(t *testing.T) {
	e := newTestEnv(t, nil)
	log := startController(t, e.ns, controllerSetup{})
	e.createNetwork(providerConfig("overlay:\n  enabled: true\n"))
	e.waitForOperation(log, nil, "Create", "Succeeded")
	oldSecret := e.managedResource().Spec.SecretRefs[0].Name

	before := log.Snapshot()
	e.patchNetwork(func(n *extensionsv1alpha1.Network) {
		n.Spec.ProviderConfig.Raw = yamlToJSON(t, providerConfig("overlay:\n  enabled: true\ntypha:\n  enabled: false\n").Raw)
		n.Annotations = map[string]string{"gardener.cloud/operation": "reconcile"}
	})
	n := e.waitForOperation(log, before, "Reconcile", "Succeeded")
	if n.Status.ObservedGeneration != n.Generation {
		t.Errorf("observedGeneration = %d, want %d", n.Status.ObservedGeneration, n.Generation)
	}
	newSecret := e.managedResource().Spec.SecretRefs[0].Name
	if newSecret == oldSecret {
		t.Fatalf("secret name unchanged (%s) after a providerConfig change", newSecret)
	}
	secrets := e.secretNames()
	if slices.Contains(secrets, oldSecret) {
		t.Errorf("old secret %s still exists; secrets: %v", oldSecret, secrets)
	}
	if !slices.Contains(secrets, newSecret) {
		t.Errorf("new secret %s missing; secrets: %v", newSecret, secrets)
	}
	if _, ok := e.manifest()["Deployment/calico-typha"]; ok {
		t.Error("typha still deployed after typha.enabled=false")
	}

	// Unchanged: annotate again and count writes.
	before = log.Snapshot()
	e.annotate("reconcile")
	e.waitForOperation(log, before, "Reconcile", "Succeeded")
	writes := log.Since(before)
	for _, res := range []string{"secrets", "managedresources", "configmaps", "scrapeconfigs"} {
		if writes[res] != 0 {
			t.Errorf("unchanged reconcile sent %d write requests for %s, want 0 (all writes: %v)", writes[res], res, writes)
		}
	}
	// Only lifecycle bookkeeping: the annotation removal and one status write (Succeeded). Events
	// are left out here: the events library sends them asynchronously (budget_test.go shows that
	// none is recorded).
	delete(writes, "events")
	want := map[string]int{"networks": 1, "networks/status": 1}
	if diff := cmp.Diff(want, writes); diff != "" {
		t.Errorf("write requests of an unchanged reconcile (-want +got):\n%s", diff)
	}
	if got := e.managedResource().Spec.SecretRefs[0].Name; got != newSecret {
		t.Errorf("secret changed to %s on an unchanged reconcile", got)
	}
}

// TestInvalidProviderConfig: Error with the field path in lastError, ERR_CONFIGURATION_PROBLEM,
// a condition saying so, and nothing stored.
func TestInvalidProviderConfig(t *testing.T) {
	tests := []struct {
		name       string
		config     string
		wantText   []string
		wantPrefix string
		wantReason string
	}{
		{name: "unsupported value", config: "ipv4:\n  mode: Sometimes\n", wantText: []string{"spec.providerConfig.ipv4.mode", "Sometimes"},
			wantPrefix: "Error reconciling Network: invalid providerConfig: ", wantReason: "InvalidProviderConfig"},
		{name: "unknown field", config: "overlay:\n  enabeld: true\n", wantText: []string{"spec.providerConfig.overlay.enabeld"},
			wantPrefix: "Error reconciling Network: invalid providerConfig: ", wantReason: "InvalidProviderConfig"},
		// A config of a rule beyond the reference (vpa mode without the shoot's VPA) reconciles with
		// a condition instead (ratchet_test.go).
		{name: "IPv6 block on an IPv4 shoot", config: "ipv6:\n  mode: Never\n", wantText: []string{"spec.providerConfig.ipv6", "IPv6 configuration must not be specified"},
			wantPrefix: "Error reconciling Network: invalid providerConfig: ", wantReason: "InvalidProviderConfig"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t, nil)
			log := startController(t, e.ns, controllerSetup{})
			e.createNetwork(providerConfig(tt.config))
			n := e.waitForOperation(log, nil, "Create", "Error")
			le := n.Status.LastError
			if le == nil {
				t.Fatal("no lastError")
			}
			for _, w := range tt.wantText {
				if !strings.Contains(le.Description, w) {
					t.Errorf("lastError %q does not contain %q", le.Description, w)
				}
			}
			if !strings.HasPrefix(le.Description, tt.wantPrefix) {
				t.Errorf("lastError %q does not start with %q", le.Description, tt.wantPrefix)
			}
			if diff := cmp.Diff([]gardencorev1beta1.ErrorCode{"ERR_CONFIGURATION_PROBLEM"}, le.Codes); diff != "" {
				t.Errorf("lastError codes (-want +got):\n%s", diff)
			}
			cond := findCondition(n, "ConfigurationValid")
			if cond == nil || cond.Status != "False" || cond.Reason != tt.wantReason {
				t.Errorf("condition ConfigurationValid = %+v, want False/%s", cond, tt.wantReason)
			}
			if mr := e.managedResource(); mr != nil {
				t.Errorf("ManagedResource created for an invalid config")
			}
			if s := e.secretNames(); len(s) != 0 {
				t.Errorf("secrets created for an invalid config: %v", s)
			}
			if n.Status.ProviderStatus != nil {
				t.Errorf("providerStatus written for an invalid config: %s", n.Status.ProviderStatus.Raw)
			}
		})
	}
}

func findCondition(n *extensionsv1alpha1.Network, condType string) *gardencorev1beta1.Condition {
	for i := range n.Status.Conditions {
		if string(n.Status.Conditions[i].Type) == condType {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

// TestDelete: deletion removes the seed monitoring objects and the ManagedResource with its secret,
// waits (bounded) while the resource manager still holds it, then releases the Network.
func TestDelete(t *testing.T) {
	e := newTestEnv(t, nil)
	log := startController(t, e.ns, controllerSetup{})
	e.createNetwork(providerConfig("overlay:\n  enabled: true\n"))
	e.waitForOperation(log, nil, "Create", "Succeeded")
	ctx := context.Background()

	// Play the shoot's resource manager: its finalizer keeps the ManagedResource while it deletes.
	mr := e.managedResource()
	mr.Finalizers = append(mr.Finalizers, "resources.gardener.cloud/gardener-resource-manager")
	if err := e.c.Update(ctx, mr); err != nil {
		t.Fatal(err)
	}
	// A leftover the reference extension may have created: deleted whatever the config says.
	legacy := &corev1.ConfigMap{}
	legacy.Namespace, legacy.Name = e.ns, "calico-monitoring-config"
	if err := e.c.Create(ctx, legacy); err != nil {
		t.Fatal(err)
	}

	if err := e.c.Delete(ctx, e.network()); err != nil {
		t.Fatal(err)
	}
	n := e.waitForOperation(log, nil, "Delete", "Error")
	if !strings.Contains(n.Status.LastError.Description, "still exists after 3s") {
		t.Errorf("lastError %q does not say the ManagedResource still exists", n.Status.LastError.Description)
	}
	if !slices.Contains(n.Finalizers, "extensions.gardener.cloud/network") {
		t.Error("finalizer removed although the ManagedResource is not gone")
	}
	if s := e.secretNames(); len(s) != 0 {
		t.Errorf("secrets left after delete: %v", s)
	}
	for _, name := range []string{"calico-dashboards", "calico-monitoring-config"} {
		if err := e.c.Get(ctx, client.ObjectKey{Namespace: e.ns, Name: name}, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
			t.Errorf("seed ConfigMap %s: got %v, want NotFound", name, err)
		}
	}

	// The resource manager finishes: the Network goes away.
	mr = e.managedResource()
	mr.Finalizers = nil
	if err := e.c.Update(ctx, mr); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the Network to be gone", func() (bool, error) {
		err := e.c.Get(ctx, e.key(), &extensionsv1alpha1.Network{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	if mr := e.managedResource(); mr != nil {
		t.Error("ManagedResource still exists")
	}
}

// TestForceDelete: a shoot with the force-deletion annotation is released without waiting.
func TestForceDelete(t *testing.T) {
	e := newTestEnv(t, nil)
	log := startController(t, e.ns, controllerSetup{})
	e.createNetwork(nil)
	e.waitForOperation(log, nil, "Create", "Succeeded")
	ctx := context.Background()
	mr := e.managedResource()
	mr.Finalizers = append(mr.Finalizers, "resources.gardener.cloud/gardener-resource-manager")
	if err := e.c.Update(ctx, mr); err != nil {
		t.Fatal(err)
	}
	shoot := baseShoot()
	shoot.Annotations = map[string]string{"confirmation.gardener.cloud/force-deletion": "true"}
	e.setShoot(shoot)
	if err := e.c.Delete(ctx, e.network()); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the Network to be gone", func() (bool, error) {
		err := e.c.Get(ctx, e.key(), &extensionsv1alpha1.Network{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	if mr := e.managedResource(); mr == nil || mr.DeletionTimestamp == nil {
		t.Errorf("ManagedResource = %v, want it marked for deletion", mr)
	}
	if s := e.secretNames(); len(s) != 0 {
		t.Errorf("secrets left after force delete: %v", s)
	}
}

// TestMigrateAndRestore: migrate marks the ManagedResource keepObjects before deleting it (the shoot
// keeps its objects), drops the finalizers and the annotation; restore deploys everything again.
func TestMigrateAndRestore(t *testing.T) {
	e := newTestEnv(t, nil)
	log := startController(t, e.ns, controllerSetup{})
	e.createNetwork(providerConfig("overlay:\n  enabled: true\n"))
	e.waitForOperation(log, nil, "Create", "Succeeded")
	ctx := context.Background()
	mr := e.managedResource()
	secretBefore := mr.Spec.SecretRefs[0].Name
	mr.Finalizers = append(mr.Finalizers, "resources.gardener.cloud/gardener-resource-manager")
	if err := e.c.Update(ctx, mr); err != nil {
		t.Fatal(err)
	}

	e.annotate("migrate")
	n := e.waitForOperation(log, nil, "Migrate", "Succeeded")
	if len(n.Finalizers) != 0 {
		t.Errorf("finalizers after migrate = %v, want none", n.Finalizers)
	}
	mr = e.managedResource()
	if mr == nil || mr.DeletionTimestamp == nil {
		t.Fatalf("ManagedResource = %v, want it marked for deletion", mr)
	}
	if mr.Spec.KeepObjects == nil || !*mr.Spec.KeepObjects {
		t.Errorf("keepObjects = %v, want true so the shoot keeps its objects", mr.Spec.KeepObjects)
	}
	if s := e.secretNames(); len(s) != 0 {
		t.Errorf("secrets left after migrate: %v", s)
	}
	// The resource manager lets go (keepObjects: it deletes nothing in the shoot).
	mr.Finalizers = nil
	if err := e.c.Update(ctx, mr); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the ManagedResource to be gone", func() (bool, error) { return e.managedResource() == nil, nil })

	// A migrated Network is left alone by ordinary reconciles...
	before := log.Snapshot()
	e.annotate("reconcile")
	e.waitFor("the reconcile annotation to be removed", func() (bool, error) {
		_, ok := e.network().Annotations["gardener.cloud/operation"]
		return !ok, nil
	})
	if w := log.Since(before); w["managedresources"] != 0 || w["secrets"] != 0 {
		t.Errorf("a migrated Network was reconciled: writes %v", w)
	}

	// ...and brought back by restore.
	e.annotate("restore")
	n = e.waitForOperation(log, nil, "Restore", "Succeeded")
	if n.Status.LastOperation.Description != "Successfully restored Network" {
		t.Errorf("description = %q", n.Status.LastOperation.Description)
	}
	if !slices.Contains(n.Finalizers, "extensions.gardener.cloud/network") {
		t.Errorf("finalizers after restore = %v", n.Finalizers)
	}
	mr = e.managedResource()
	if mr == nil || mr.Spec.SecretRefs[0].Name != secretBefore {
		t.Fatalf("ManagedResource after restore = %v, want secret %s again", mr, secretBefore)
	}
	if mr.Spec.KeepObjects == nil || *mr.Spec.KeepObjects {
		t.Errorf("keepObjects after restore = %v, want false", mr.Spec.KeepObjects)
	}
}

// TestFailedShootLeftAlone: a Network whose shoot failed gets no status, no finalizer and nothing
// stored.
func TestFailedShootLeftAlone(t *testing.T) {
	failed := newTestEnv(t, func(s *gardencorev1beta1.Shoot) {
		s.Status.LastOperation = &gardencorev1beta1.LastOperation{Type: "Reconcile", State: "Failed", Description: "failed"}
	})
	sentinel := newTestEnv(t, nil)
	log := startController(t, failed.ns, controllerSetup{}, sentinel.ns)
	failed.createNetwork(nil)
	// The reconcile annotation is removed before the shoot is looked at, so its removal shows the
	// failed shoot's Network was picked up.
	failed.waitFor("the reconcile annotation to be removed", func() (bool, error) {
		_, ok := failed.network().Annotations["gardener.cloud/operation"]
		return !ok, nil
	})
	// One worker: the sentinel's reconcile starts only after the failed one has returned.
	sentinel.createNetwork(nil)
	sentinel.waitForOperation(log, nil, "Create", "Succeeded")

	n := failed.network()
	if n.Status.LastOperation != nil || len(n.Finalizers) != 0 {
		t.Errorf("failed shoot's Network was touched: lastOperation %+v, finalizers %v", n.Status.LastOperation, n.Finalizers)
	}
	if failed.managedResource() != nil {
		t.Error("ManagedResource created for a failed shoot")
	}
}
