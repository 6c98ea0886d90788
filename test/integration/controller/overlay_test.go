package controller

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
)

// shootClient is an admin client of the shoot control plane.
func shootClient(t testing.TB) client.Client {
	t.Helper()
	c, err := client.New(shootCP.Config, client.Options{Scheme: newScheme(t)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// grantShootAccess creates the shoot access secret the controller reads (the external "gardener"
// one, so the lookup's fallback from gardener-internal is exercised too).
func (e *testEnv) grantShootAccess() {
	e.t.Helper()
	e.grantShootAccessAs("gardener")
}

// grantShootAccessAs stores the shoot's admin kubeconfig in the seed Secret name
// ("gardener-internal", which every real control-plane namespace has, or "gardener").
func (e *testEnv) grantShootAccessAs(name string) {
	e.t.Helper()
	kubeconfig, err := shootCP.AdminKubeconfig("gardener")
	if err != nil {
		e.t.Fatal(err)
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: name}, Data: map[string][]byte{"kubeconfig": kubeconfig}}
	if err := e.c.Create(context.Background(), s); err != nil {
		e.t.Fatal(err)
	}
}

// setNodes creates (or updates) shoot nodes with the given NetworkUnavailable reason ("" = no
// condition; "RouteCreated" = routes ready) and deletes them when the test ends.
func setNodes(t *testing.T, reasons map[string]string) {
	t.Helper()
	c := shootClient(t)
	ctx := context.Background()
	for name, reason := range reasons {
		n := &corev1.Node{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, n); err != nil {
			n = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
			if err := c.Create(ctx, n); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Delete(context.Background(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}) })
		}
		n.Status.Conditions = nil
		if reason != "" {
			status := corev1.ConditionTrue
			if reason == "RouteCreated" {
				status = corev1.ConditionFalse
			}
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeNetworkUnavailable, Status: status, Reason: reason, Message: "test"}}
		}
		if err := c.Status().Update(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
}

// overlayEnv returns whether the stored calico-node DaemonSet has FELIX_IPINIPENABLED=true.
func (e *testEnv) storedOverlay() bool {
	e.t.Helper()
	ds := e.manifest()["DaemonSet/calico-node"]
	raw, err := json.Marshal(ds)
	if err != nil {
		e.t.Fatal(err)
	}
	return strings.Contains(string(raw), `{"name":"FELIX_IPINIPENABLED","value":"true"}`)
}

func (e *testEnv) switchOverlayOff() {
	e.t.Helper()
	e.patchNetwork(func(n *extensionsv1alpha1.Network) {
		n.Spec.ProviderConfig.Raw = yamlToJSON(e.t, providerConfig("overlay:\n  enabled: false\n").Raw)
		n.Annotations = map[string]string{"gardener.cloud/operation": "reconcile"}
	})
}

// TestOverlaySwitch covers when switching the overlay off waits for node routes.
func TestOverlaySwitch(t *testing.T) {
	tests := []struct {
		name     string
		gate     bool
		version  string
		apiOptIn bool
		wantWait bool
	}{
		{name: "gate off switches immediately", gate: false, version: "1.36.1", wantWait: false},
		{name: "gate on, MAP API GA (1.36) waits for routes", gate: true, version: "1.36.1", wantWait: true},
		{name: "gate on, 1.34 with MAP feature gate and runtimeConfig waits", gate: true, version: "1.34.3", apiOptIn: true, wantWait: true},
		{name: "gate on, MAP API not available (1.35 without opt-in) switches immediately", gate: true, version: "1.35.4", wantWait: false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t, func(s *gardencorev1beta1.Shoot) {
				s.Spec.Kubernetes.Version = tt.version
				if tt.apiOptIn {
					s.Spec.Kubernetes.KubeAPIServer = &gardencorev1beta1.KubeAPIServerConfig{
						FeatureGates:  map[string]bool{"MutatingAdmissionPolicy": true},
						RuntimeConfig: map[string]bool{"admissionregistration.k8s.io/v1beta1": true},
					}
				}
			})
			e.grantShootAccess()
			prefix := []string{"a", "b", "c", "d"}[i]
			setNodes(t, map[string]string{prefix + "-node-1": "RouteCreated", prefix + "-node-2": "", prefix + "-node-3": "NoRouteCreated"})
			log := startController(t, e.ns, controllerSetup{gates: map[string]bool{"SeamlessOverlaySwitch": tt.gate}})
			e.createNetwork(providerConfig("overlay:\n  enabled: true\n"))
			e.waitForOperation(log, nil, "Create", "Succeeded")
			if !e.storedOverlay() {
				t.Fatal("overlay not on after create")
			}
			oldSecret := e.managedResource().Spec.SecretRefs[0].Name

			before := log.Snapshot()
			e.switchOverlayOff()
			if !tt.wantWait {
				e.waitForOperation(log, before, "Reconcile", "Succeeded")
				if e.storedOverlay() {
					t.Error("overlay still on after an immediate switch")
				}
				return
			}
			n := e.waitForOperation(log, before, "Reconcile", "Error")
			wantMsg := "waiting for routes to be created on all nodes before disabling overlay: 2 of 3 nodes not ready (" +
				prefix + "-node-2: no NetworkUnavailable condition, " + prefix + `-node-3: NetworkUnavailable is True with reason "NoRouteCreated")`
			if !strings.Contains(n.Status.LastError.Description, wantMsg) {
				t.Errorf("lastError %q does not contain %q", n.Status.LastError.Description, wantMsg)
			}
			if len(n.Status.LastError.Codes) != 0 {
				t.Errorf("lastError codes = %v, want none (retriable)", n.Status.LastError.Codes)
			}
			if c := findCondition(n, "OverlaySwitchReady"); c == nil || c.Status != "False" || c.Reason != "WaitingForRoutes" {
				t.Errorf("condition OverlaySwitchReady = %+v, want False/WaitingForRoutes", c)
			}
			if got := e.managedResource().Spec.SecretRefs[0].Name; got != oldSecret || !e.storedOverlay() {
				t.Errorf("old manifest not kept: secret %s (was %s), overlay on %v", got, oldSecret, e.storedOverlay())
			}
			var ps struct {
				OverlayEnabled *bool `json:"overlayEnabled"`
			}
			if err := json.Unmarshal(n.Status.ProviderStatus.Raw, &ps); err != nil || ps.OverlayEnabled == nil || !*ps.OverlayEnabled {
				t.Errorf("providerStatus.overlayEnabled = %v (%v), want still true", ps.OverlayEnabled, err)
			}

			// The routes appear; the retry (no new annotation) switches the overlay off.
			setNodes(t, map[string]string{prefix + "-node-2": "RouteCreated", prefix + "-node-3": "RouteCreated"})
			n = e.waitForOperation(log, nil, "Reconcile", "Succeeded")
			if e.storedOverlay() {
				t.Error("overlay still on after the routes were created")
			}
			if c := findCondition(n, "OverlaySwitchReady"); c == nil || c.Status != "True" || c.Reason != "RoutesCreated" {
				t.Errorf("condition OverlaySwitchReady = %+v, want True/RoutesCreated", c)
			}
		})
	}
}

// TestOverlaySwitchFromReferenceExtension: a Network last reconciled by the reference extension
// has no overlay state in its provider status; the deployed DaemonSet in the ManagedResource secret
// says the overlay is on, so switching it off waits for routes.
func TestOverlaySwitchFromReferenceExtension(t *testing.T) {
	e := newTestEnv(t, func(s *gardencorev1beta1.Shoot) { s.Spec.Kubernetes.Version = "1.36.1" })
	e.grantShootAccess()
	setNodes(t, map[string]string{"ref-node-1": ""})
	ctx := context.Background()
	// What the reference extension left behind: a YAML manifest with the overlay on.
	legacy := "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: calico-node\n  namespace: kube-system\nspec:\n  template:\n    spec:\n      containers:\n      - name: calico-node\n        env:\n        - name: FELIX_IPINIPENABLED\n          value: \"true\"\n"
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: "managedresource-extension-networking-calico-config"}, Data: map[string][]byte{"config.yaml": []byte(legacy)}}
	if err := e.c.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}
	mr := &resourcesv1alpha1.ManagedResource{
		// The reference labels it origin=extension-networking-calico; this one has no label, so the
		// controller must find it without its label-selected cache.
		ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: mrName},
		Spec:       resourcesv1alpha1.ManagedResourceSpec{SecretRefs: []corev1.LocalObjectReference{{Name: secret.Name}}, KeepObjects: ptr.To(false)},
	}
	if err := e.c.Create(ctx, mr); err != nil {
		t.Fatal(err)
	}
	log := startController(t, e.ns, controllerSetup{gates: map[string]bool{"SeamlessOverlaySwitch": true}})
	e.createNetwork(providerConfig("overlay:\n  enabled: false\n"))
	n := e.waitForOperation(log, nil, "Create", "Error")
	if !strings.Contains(n.Status.LastError.Description, "waiting for routes to be created on all nodes before disabling overlay: 1 of 1 nodes not ready") {
		t.Errorf("lastError = %q, want the route wait", n.Status.LastError.Description)
	}
	if got := e.managedResource().Spec.SecretRefs[0].Name; got != secret.Name {
		t.Errorf("reference manifest replaced by %s while routes are missing", got)
	}
	setNodes(t, map[string]string{"ref-node-1": "RouteCreated"})
	e.waitForOperation(log, nil, "Create", "Succeeded")
	if e.storedOverlay() {
		t.Error("overlay still on after the routes were created")
	}
}
