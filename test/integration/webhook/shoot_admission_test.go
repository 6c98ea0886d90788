package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/calico-pilot/calico-pilot/internal/calicofacts"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion/calicoversiontest"
)

var shoots = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}

// warnings collects the admission warnings the API server returns (HTTP Warning headers, code 299).
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) HandleWarningHeader(code int, _ string, text string) {
	if code != 299 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.msgs
	w.msgs = nil
	return out
}

// shootClient returns a client for Shoots in a fresh namespace and the collector of its warnings.
func shootClient(t *testing.T) (dynamic.ResourceInterface, *warnings) {
	t.Helper()
	cfg := rest.CopyConfig(controlPlane.Config)
	w := &warnings{}
	cfg.WarningHandler = w
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(controlPlane.Config)
	if err != nil {
		t.Fatal(err)
	}
	ns, err := cs.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "garden-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	return dyn.Resource(shoots).Namespace(ns.Name), w
}

// shoot describes a Shoot as a user (and gardenlet, for the status) would write it.
type shoot struct {
	name           string
	networkingType string // "" = calico
	unlabelled     bool   // without the label the webhook's objectSelector matches
	providerConfig string // JSON object without apiVersion/kind; "" = none
	workerless     bool
	created        bool // gardenlet has acted: status.lastOperation is set
	hibernated     bool
	maxNodes       int64  // the worker pool's maximum size; 0 = not given
	kubernetes     string // "" = 1.36.1
}

func (s shoot) object(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	typ := s.networkingType
	if typ == "" {
		typ = "calico"
	}
	networking := map[string]any{"type": typ, "nodes": "10.250.0.0/16", "pods": "100.96.0.0/11", "services": "100.64.0.0/13"}
	if s.providerConfig != "" {
		pc := map[string]any{}
		if err := json.Unmarshal([]byte(s.providerConfig), &pc); err != nil {
			t.Fatalf("test providerConfig: %v", err)
		}
		pc["apiVersion"] = "calico.networking.extensions.gardener.cloud/v1alpha1"
		pc["kind"] = "NetworkConfig"
		networking["providerConfig"] = pc
	}
	kubernetes := s.kubernetes
	if kubernetes == "" {
		kubernetes = "1.36.1"
	}
	provider := map[string]any{"type": "aws"}
	if !s.workerless {
		worker := map[string]any{"name": "pool-a"}
		if s.maxNodes > 0 {
			worker["minimum"] = int64(1)
			worker["maximum"] = s.maxNodes
		}
		provider["workers"] = []any{worker}
	}
	status := map[string]any{"hibernated": s.hibernated}
	if s.created {
		status["lastOperation"] = map[string]any{"type": "Reconcile", "state": "Succeeded", "progress": int64(100),
			"description": "Shoot cluster has been successfully reconciled.", "lastUpdateTime": "2026-12-01T10:00:00Z"}
	}
	spec := map[string]any{
		"networking": networking,
		"kubernetes": map[string]any{"version": kubernetes, "kubeProxy": map[string]any{"enabled": true, "mode": "IPTables"}},
		"provider":   provider,
	}
	if s.hibernated {
		spec["hibernation"] = map[string]any{"enabled": true}
	}
	labels := map[string]any{}
	if !s.unlabelled {
		labels[calicoLabel] = "true"
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1",
		"kind":       "Shoot",
		"metadata":   map[string]any{"name": s.name, "labels": labels},
		"spec":       spec,
		"status":     status,
	}}
}

// cause is the part of a denial's causes the tests compare: the field path and the error type.
type cause struct {
	Type  metav1.CauseType
	Field string
}

// denial checks that err is the webhook's 422 denial and returns its causes.
func denial(t *testing.T, err error) []cause {
	t.Helper()
	if err == nil {
		t.Fatal("request was allowed, want a denial")
	}
	var statusErr *apierrors.StatusError
	if !errors.As(err, &statusErr) {
		t.Fatalf("error is not an API status: %v", err)
	}
	st := statusErr.ErrStatus
	if st.Code != 422 || st.Reason != metav1.StatusReasonInvalid {
		t.Errorf("denial code/reason = %d/%s, want 422/Invalid (%v)", st.Code, st.Reason, err)
	}
	if !strings.Contains(st.Message, `admission webhook "`+webhookName+`" denied the request`) {
		t.Errorf("denial does not name the webhook: %s", st.Message)
	}
	if st.Details == nil {
		t.Fatalf("denial carries no details: %v", err)
	}
	var out []cause
	for _, c := range st.Details.Causes {
		out = append(out, cause{Type: c.Type, Field: c.Field})
	}
	return out
}

func warningPaths(msgs []string) []string {
	var out []string
	for _, m := range msgs {
		path, _, _ := strings.Cut(m, ": ")
		out = append(out, path)
	}
	return out
}

func TestCreateShoot(t *testing.T) {
	tests := []struct {
		name       string
		shoot      shoot
		wantCauses []cause // nil = allowed
	}{
		{
			name:  "valid calico shoot",
			shoot: shoot{name: "valid", providerConfig: `{"overlay":{"enabled":true},"typha":{"enabled":true}}`},
		},
		{
			name:  "calico shoot without providerConfig",
			shoot: shoot{name: "defaults"},
		},
		{
			name:  "unsupported values, each with its path",
			shoot: shoot{name: "invalid", providerConfig: `{"backend":"bgp","ipam":{"type":"dhcp"},"vethMTU":"-1"}`},
			wantCauses: []cause{
				{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.networking.providerConfig.backend"},
				{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.networking.providerConfig.ipam.type"},
				{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.networking.providerConfig.vethMTU"},
			},
		},
		{
			name:  "unknown providerConfig field",
			shoot: shoot{name: "unknown-field", providerConfig: `{"typha":{"enabled":true,"replicas":3}}`},
			wantCauses: []cause{
				{Type: metav1.CauseTypeForbidden, Field: "spec.networking.providerConfig.typha.replicas"},
			},
		},
		{
			name:  "other networking type is allowed untouched",
			shoot: shoot{name: "cilium", networkingType: "cilium", providerConfig: `{"tunnel":"vxlan"}`},
		},
		{
			name:  "workerless shoot is skipped",
			shoot: shoot{name: "workerless", workerless: true, providerConfig: `{"backend":"bgp"}`},
		},
		{
			name:  "shoot without the calico label is not sent to the webhook",
			shoot: shoot{name: "unlabelled", unlabelled: true, providerConfig: `{"backend":"bgp"}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, w := shootClient(t)
			_, err := c.Create(context.Background(), tt.shoot.object(t), metav1.CreateOptions{})
			if tt.wantCauses == nil {
				if err != nil {
					t.Fatalf("create denied: %v", err)
				}
				if got := w.take(); len(got) > 0 {
					t.Errorf("create returned warnings %q, want none", got)
				}
				return
			}
			if diff := cmp.Diff(tt.wantCauses, denial(t, err)); diff != "" {
				t.Errorf("denial causes (-want +got):\n%s\nerror: %v", diff, err)
			}
		})
	}
}

func TestUpdateShoot(t *testing.T) {
	tests := []struct {
		name         string
		old          shoot
		newConfig    string
		wantCauses   []cause  // nil = allowed
		wantWarnings []string // field paths the warnings start with
		wantPhrase   string   // a phrase the denial or the warning must contain
	}{
		{
			name:       "ipam calico-ipam -> host-local on a shoot with nodes is denied",
			old:        shoot{name: "ipam", created: true, providerConfig: `{"ipam":{"type":"calico-ipam"}}`},
			newConfig:  `{"ipam":{"type":"host-local"}}`,
			wantCauses: []cause{{Type: metav1.CauseTypeForbidden, Field: "spec.networking.providerConfig.ipam.type"}},
			wantPhrase: "the IPAM plugin cannot change from calico-ipam to host-local while the shoot has nodes",
		},
		{
			name:       "removing the providerConfig of a calico-ipam shoot with nodes is denied",
			old:        shoot{name: "ipam-removed", created: true, providerConfig: `{"ipam":{"type":"calico-ipam"}}`},
			newConfig:  "",
			wantCauses: []cause{{Type: metav1.CauseTypeForbidden, Field: "spec.networking.providerConfig.ipam.type"}},
			wantPhrase: "keep calico-ipam",
		},
		{
			name:      "ipam change on a hibernated shoot is allowed",
			old:       shoot{name: "ipam-hibernated", created: true, hibernated: true, providerConfig: `{"ipam":{"type":"calico-ipam"}}`},
			newConfig: `{"ipam":{"type":"host-local"}}`,
		},
		{
			name:      "ipam change before the shoot was ever created is allowed",
			old:       shoot{name: "ipam-new", providerConfig: `{"ipam":{"type":"calico-ipam"}}`},
			newConfig: `{"ipam":{"type":"host-local"}}`,
		},
		{
			name:         "overlay on -> off is allowed with a warning",
			old:          shoot{name: "overlay-off", created: true, providerConfig: `{"overlay":{"enabled":true}}`},
			newConfig:    `{"overlay":{"enabled":false}}`,
			wantWarnings: []string{"spec.networking.providerConfig.overlay.enabled"},
			wantPhrase:   "disabling the overlay restarts calico-node on every node",
		},
		{
			name:         "overlay off -> on is allowed with a warning",
			old:          shoot{name: "overlay-on", created: true, providerConfig: `{"overlay":{"enabled":false}}`},
			newConfig:    `{"overlay":{"enabled":true}}`,
			wantWarnings: []string{"spec.networking.providerConfig.overlay.enabled"},
			wantPhrase:   "(backend none -> bird)",
		},
		{
			name:         "backend change is allowed with a warning",
			old:          shoot{name: "backend", created: true, providerConfig: `{"ipam":{"type":"calico-ipam"},"backend":"bird"}`},
			newConfig:    `{"ipam":{"type":"calico-ipam"},"backend":"vxlan"}`,
			wantWarnings: []string{"spec.networking.providerConfig.backend"},
			wantPhrase:   "the Calico backend changes from bird to vxlan",
		},
		{
			name:         "eBPF on is allowed with a warning",
			old:          shoot{name: "ebpf", created: true},
			newConfig:    `{"ebpfDataplane":{"enabled":true}}`,
			wantWarnings: []string{"spec.networking.providerConfig.ebpfDataplane.enabled"},
			wantPhrase:   "switching the data plane to eBPF",
		},
		{
			name:         "typha off on a shoot that can grow to 60 nodes is allowed with a warning",
			old:          shoot{name: "typha-large", created: true, maxNodes: 60, providerConfig: `{"typha":{"enabled":true}}`},
			newConfig:    `{"typha":{"enabled":false}}`,
			wantWarnings: []string{"spec.networking.providerConfig.typha.enabled"},
			wantPhrase:   "disabling typha on a shoot that can grow to 60 nodes",
		},
		{
			name:      "typha off on a shoot of at most 10 nodes is allowed silently",
			old:       shoot{name: "typha-small", created: true, maxNodes: 10, providerConfig: `{"typha":{"enabled":true}}`},
			newConfig: `{"typha":{"enabled":false}}`,
		},
		{
			name:       "an unsupported Calico line is denied",
			old:        shoot{name: "pin-bad", created: true},
			newConfig:  `{"calicoVersion":"v3.30"}`,
			wantCauses: []cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.networking.providerConfig.calicoVersion"}},
			wantPhrase: "Calico \"v3.30\" is not supported; accepted: a line (v3.31, v3.32: its newest release)",
		},
		{
			name:       "a pin to a line that does not support the shoot's Kubernetes is denied",
			old:        shoot{name: "pin-k8s", created: true, providerConfig: `{"calicoVersion":"v3.32"}`},
			newConfig:  `{"calicoVersion":"v3.31"}`,
			wantCauses: []cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.networking.providerConfig.calicoVersion"}},
			wantPhrase: "Calico v3.31.7 supports Kubernetes 1.32-1.35, the shoot runs 1.36.1 (spec.kubernetes.version); pin v3.32, or remove the pin",
		},
		{
			name:         "a pin downgrade is allowed with the facts of the move",
			old:          shoot{name: "pin-down", created: true, kubernetes: "1.35.2", providerConfig: `{"calicoVersion":"v3.32"}`},
			newConfig:    `{"calicoVersion":"v3.31"}`,
			wantWarnings: slices.Repeat([]string{"spec.networking.providerConfig.calicoVersion"}, len(calicofacts.Notes(calicoversiontest.Newest(t, "v3.32"), calicoversiontest.Newest(t, "v3.31")))),
			wantPhrase:   "spec.networking.providerConfig.calicoVersion: policies whose stored name does not start with their tier run in another tier under v3.31 [down.policy-tiers]",
		},
		{
			name:         "removing a pin is allowed with a warning",
			old:          shoot{name: "pin-removed", created: true, providerConfig: `{"calicoVersion":"v3.32"}`},
			newConfig:    "",
			wantWarnings: []string{"spec.networking.providerConfig.calicoVersion"},
			wantPhrase:   "removing the pin to v3.32 hands the shoot's Calico release to the operator",
		},
		{
			// The facts of the move, and the known issue of v3.32.1 that v3.31's releases do not have.
			name:         "a pin upgrade is allowed with the facts of the move and the known issues of the pinned release",
			old:          shoot{name: "pin-up", created: true, kubernetes: "1.35.2", providerConfig: `{"calicoVersion":"v3.31"}`},
			newConfig:    `{"calicoVersion":"v3.32"}`,
			wantWarnings: slices.Repeat([]string{"spec.networking.providerConfig.calicoVersion"}, len(calicofacts.Notes(calicoversiontest.Newest(t, "v3.31"), calicoversiontest.Newest(t, "v3.32")))+1),
			wantPhrase: "spec.networking.providerConfig.calicoVersion: known issue of Calico v3.32.1 (calico-kube-controllers): " +
				"kube-controllers does nothing while any calico-node pod is unavailable [kube-controllers-stalls-while-calico-node-unavailable]; what to do: docs/calico-lines.md",
		},
		{
			name:      "a pin to another release of the line the old pin names has no known issue to add",
			old:       shoot{name: "pin-same-line", created: true, providerConfig: `{"calicoVersion":"v3.32"}`},
			newConfig: `{"calicoVersion":"v3.32.1"}`,
		},
		{
			name:      "an unrelated change is allowed silently",
			old:       shoot{name: "mtu", created: true, providerConfig: `{"overlay":{"enabled":true}}`},
			newConfig: `{"overlay":{"enabled":true},"vethMTU":"1440"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			c, w := shootClient(t)
			created, err := c.Create(ctx, tt.old.object(t), metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("creating the old shoot: %v", err)
			}
			w.take()

			updated := tt.old
			updated.providerConfig = tt.newConfig
			obj := updated.object(t)
			obj.SetResourceVersion(created.GetResourceVersion())
			_, err = c.Update(ctx, obj, metav1.UpdateOptions{})
			got := w.take()

			if tt.wantCauses != nil {
				if diff := cmp.Diff(tt.wantCauses, denial(t, err)); diff != "" {
					t.Errorf("denial causes (-want +got):\n%s\nerror: %v", diff, err)
				}
				if !strings.Contains(err.Error(), tt.wantPhrase) {
					t.Errorf("denial does not say %q: %v", tt.wantPhrase, err)
				}
				// Nothing half-applied: the stored Shoot is the old one.
				stored, getErr := c.Get(ctx, tt.old.name, metav1.GetOptions{})
				if getErr != nil {
					t.Fatal(getErr)
				}
				if stored.GetResourceVersion() != created.GetResourceVersion() {
					t.Errorf("the denied update changed the stored Shoot (resourceVersion %s -> %s)", created.GetResourceVersion(), stored.GetResourceVersion())
				}
				return
			}
			if err != nil {
				t.Fatalf("update denied: %v", err)
			}
			if diff := cmp.Diff(tt.wantWarnings, warningPaths(got)); diff != "" {
				t.Errorf("warning paths (-want +got):\n%s\nwarnings: %q", diff, got)
			}
			if tt.wantPhrase != "" && !strings.Contains(strings.Join(got, "\n"), tt.wantPhrase) {
				t.Errorf("warnings do not say %q: %q", tt.wantPhrase, got)
			}
		})
	}
}

// referenceAccepted are the contradictory configs of issue 10 that the reference extension
// accepted, with the field each one is refused on.
var referenceAccepted = []struct {
	name, config, field, changed string
}{
	{"calico-ipam with cidr", `{"ipam":{"type":"calico-ipam","cidr":"usePodCidr"}}`, "ipam.cidr", `{"ipam":{"type":"calico-ipam","cidr":"100.96.0.0/11"}}`},
	{"overlay off with backend bird", `{"overlay":{"enabled":false},"backend":"bird"}`, "backend", `{"overlay":{"enabled":false},"backend":"vxlan"}`},
	{"overlay on with ipv4 mode Never", `{"overlay":{"enabled":true},"ipv4":{"mode":"Never"}}`, "ipv4.mode", `{"overlay":{"enabled":true},"ipv4":{"mode":"Off"}}`},
	{"vxlan with host-local", `{"vxlan":{"enabled":true},"ipam":{"type":"host-local"}}`, "ipam.type", ""},
	{"ipip disagreeing with ipv4.mode", `{"ipip":"Never","ipv4":{"mode":"Always"}}`, "ipip", `{"ipip":"Off","ipv4":{"mode":"Always"}}`},
}

// TestRatchetReferenceAcceptedConfigs: admission refuses each config on create, allows an unrelated
// update of an existing Shoot that carries it (with a warning naming the field), and refuses an
// update that changes the contradictory field to another contradictory value.
func TestRatchetReferenceAcceptedConfigs(t *testing.T) {
	for i, tt := range referenceAccepted {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			c, w := shootClient(t)
			path := "spec.networking.providerConfig." + tt.field

			s := shoot{name: fmt.Sprintf("ratchet-%d", i), created: true, providerConfig: tt.config}
			_, err := c.Create(ctx, s.object(t), metav1.CreateOptions{})
			if diff := cmp.Diff([]string{path}, causeFields(denial(t, err))); diff != "" {
				t.Errorf("create denial fields (-want +got):\n%s\nerror: %v", diff, err)
			}

			// The same Shoot as the reference's webhook admitted it: stored without passing ours.
			s.unlabelled = true
			stored, err := c.Create(ctx, s.object(t), metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("storing the existing shoot: %v", err)
			}
			w.take()

			// An unrelated change (the calico label and a veth MTU) is allowed, with a warning.
			var pc map[string]any
			if err := json.Unmarshal([]byte(tt.config), &pc); err != nil {
				t.Fatal(err)
			}
			pc["vethMTU"] = "1440"
			raw, _ := json.Marshal(pc)
			updated := s
			updated.unlabelled = false
			updated.providerConfig = string(raw)
			obj := updated.object(t)
			obj.SetResourceVersion(stored.GetResourceVersion())
			stored, err = c.Update(ctx, obj, metav1.UpdateOptions{})
			if err != nil {
				t.Fatalf("unrelated update denied: %v", err)
			}
			warnings := w.take()
			if diff := cmp.Diff([]string{path}, warningPaths(warnings)); diff != "" {
				t.Errorf("warning fields (-want +got):\n%s\nwarnings: %q", diff, warnings)
			}
			for _, msg := range warnings {
				if !strings.Contains(msg, "the stored Shoot already has this value") {
					t.Errorf("warning %q does not say why the value was kept", msg)
				}
			}

			if tt.changed == "" {
				return
			}
			// Changing the field to another value that breaks the rule is refused.
			changed := updated
			changed.providerConfig = tt.changed
			obj = changed.object(t)
			obj.SetResourceVersion(stored.GetResourceVersion())
			_, err = c.Update(ctx, obj, metav1.UpdateOptions{})
			if diff := cmp.Diff([]string{path}, causeFields(denial(t, err))); diff != "" {
				t.Errorf("changed-value denial fields (-want +got):\n%s\nerror: %v", diff, err)
			}
		})
	}
}

func causeFields(causes []cause) []string {
	var out []string
	for _, c := range causes {
		out = append(out, c.Field)
	}
	return out
}

// TestCreatePinnedShootWarnsOfKnownIssues: a new Shoot that pins a release with known issues is
// admitted with one warning per issue, at the pin's path; one that pins a release without any gets none.
func TestCreatePinnedShootWarnsOfKnownIssues(t *testing.T) {
	c, w := shootClient(t)
	for _, r := range calicoversion.Default().Releases() {
		if !r.SupportsKubernetes("1.35.2") {
			continue
		}
		s := shoot{name: "create-pin-" + strings.ReplaceAll(r.Name(), ".", "-"), created: true, kubernetes: "1.35.2", providerConfig: `{"calicoVersion":"` + r.Name() + `"}`}
		if _, err := c.Create(context.Background(), s.object(t), metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating a shoot pinned to %s: %v", r, err)
		}
		got := w.take()
		if diff := cmp.Diff(slices.Repeat([]string{"spec.networking.providerConfig.calicoVersion"}, len(r.KnownIssues())), warningPaths(got), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: warning paths (-want +got):\n%s\nwarnings: %q", r, diff, got)
		}
		for _, k := range r.KnownIssues() {
			if !strings.Contains(strings.Join(got, "\n"), "known issue of Calico "+r.Name()+" ("+string(k.Component)+"): "+k.Title+" ["+k.ID+"]") {
				t.Errorf("%s: no warning of %s: %q", r, k.ID, got)
			}
		}
	}
}
