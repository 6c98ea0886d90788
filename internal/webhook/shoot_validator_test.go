package webhook

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// testShoot describes a Shoot for a request; it is turned into the JSON the API server would send.
type testShoot struct {
	networkingType string // "" = calico
	providerConfig string // JSON object without apiVersion/kind; "" = none
	workerMaximums []int  // nil = one pool with maximum 5; empty = workerless
	created        bool   // status.lastOperation is set
	hibernated     bool   // spec.hibernation.enabled and status.hibernated
	wakingUp       bool   // status.hibernated, spec.hibernation.enabled false
	kubeProxyOff   bool
	kubernetes     string // "" = 1.36.1
}

func (s testShoot) json(t testing.TB) []byte {
	t.Helper()
	networkingType := s.networkingType
	if networkingType == "" {
		networkingType = "calico"
	}
	networking := map[string]any{"type": networkingType, "nodes": "10.250.0.0/16", "pods": "100.96.0.0/11", "ipFamilies": []string{"IPv4"}}
	if s.providerConfig != "" {
		var pc map[string]any
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
	maximums := s.workerMaximums
	if maximums == nil {
		maximums = []int{5}
	}
	workers := []any{}
	for i, max := range maximums {
		workers = append(workers, map[string]any{"name": "pool-" + string(rune('a'+i)), "minimum": 1, "maximum": max,
			"machine": map[string]any{"type": "m5.large"}})
	}
	status := map[string]any{"hibernated": s.hibernated || s.wakingUp}
	if s.created {
		status["lastOperation"] = map[string]any{"type": "Reconcile", "state": "Succeeded", "progress": 100,
			"description": "Shoot cluster has been successfully reconciled.", "lastUpdateTime": "2026-12-01T10:00:00Z"}
	}
	shoot := map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1",
		"kind":       "Shoot",
		"metadata":   map[string]any{"name": "crazy-botany", "namespace": "garden-dev"},
		"spec": map[string]any{
			"networking": networking,
			"kubernetes": map[string]any{"version": kubernetes, "kubeProxy": map[string]any{"enabled": !s.kubeProxyOff, "mode": "IPTables"}},
			"provider":   map[string]any{"type": "aws", "workers": workers},
		},
		"status": status,
	}
	if s.hibernated || s.wakingUp {
		shoot["spec"].(map[string]any)["hibernation"] = map[string]any{"enabled": s.hibernated}
	}
	data, err := json.Marshal(shoot)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func request(t testing.TB, op admissionv1.Operation, shoot testShoot, old *testShoot) admission.Request {
	t.Helper()
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:       "0b1c",
		Kind:      metav1.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "Shoot"},
		Resource:  metav1.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"},
		Name:      "crazy-botany",
		Namespace: "garden-dev",
		Operation: op,
		Object:    runtime.RawExtension{Raw: shoot.json(t)},
	}}
	if old != nil {
		req.OldObject = runtime.RawExtension{Raw: old.json(t)}
	}
	return req
}

// outcome is what the tests compare of a response.
type outcome struct {
	Allowed  bool
	Code     int32
	Causes   []metav1.StatusCause // field paths and types only
	Warnings []string             // field paths the warnings start with
}

func outcomeOf(resp admission.Response) outcome {
	o := outcome{Allowed: resp.Allowed}
	if resp.Result != nil {
		o.Code = resp.Result.Code
		if !resp.Allowed && resp.Result.Details != nil {
			for _, c := range resp.Result.Details.Causes {
				o.Causes = append(o.Causes, metav1.StatusCause{Type: c.Type, Field: c.Field})
			}
		}
	}
	o.Warnings = warningPaths(resp.Warnings)
	return o
}

func TestShootValidatorHandle(t *testing.T) {
	running := func(s testShoot) *testShoot { s.created = true; return &s }
	tests := []struct {
		name string
		req  func(t *testing.T) admission.Request
		want outcome
	}{
		{
			name: "valid calico shoot on create",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Create, testShoot{providerConfig: `{"overlay":{"enabled":true}}`}, nil)
			},
			want: outcome{Allowed: true, Code: http.StatusOK},
		},
		{
			name: "unknown providerConfig field is denied with its path",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Create, testShoot{providerConfig: `{"overlay":{"enabled":true,"mode":"x"}}`}, nil)
			},
			want: outcome{Code: http.StatusUnprocessableEntity, Causes: []metav1.StatusCause{
				{Type: metav1.CauseTypeForbidden, Field: "spec.networking.providerConfig.overlay.mode"},
			}},
		},
		{
			name: "every validation error is reported with its path",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Create, testShoot{kubeProxyOff: true,
					providerConfig: `{"backend":"bgp","autoScaling":{"mode":"vpa"}}`}, nil)
			},
			want: outcome{Code: http.StatusUnprocessableEntity, Causes: []metav1.StatusCause{
				{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.networking.providerConfig.backend"},
				{Type: metav1.CauseTypeForbidden, Field: "spec.kubernetes.kubeProxy.enabled"},
				{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.networking.providerConfig.autoScaling.mode"},
			}},
		},
		{
			name: "an invalid update is denied before transitions are compared",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Update,
					testShoot{created: true, providerConfig: `{"ipam":{"type":"dhcp"}}`},
					running(testShoot{providerConfig: `{"ipam":{"type":"calico-ipam"}}`}))
			},
			want: outcome{Code: http.StatusUnprocessableEntity, Causes: []metav1.StatusCause{
				{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.networking.providerConfig.ipam.type"},
			}},
		},
		{
			name: "other networking types are not looked at",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Create, testShoot{networkingType: "cilium", providerConfig: `{"whatever":true}`}, nil)
			},
			want: outcome{Allowed: true, Code: http.StatusOK},
		},
		{
			name: "workerless shoots are skipped",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Create, testShoot{workerMaximums: []int{}, providerConfig: `{"bogus":1}`}, nil)
			},
			want: outcome{Allowed: true, Code: http.StatusOK},
		},
		{
			name: "delete is not validated",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Delete, testShoot{providerConfig: `{"bogus":1}`}, nil)
			},
			want: outcome{Allowed: true, Code: http.StatusOK},
		},
		{
			name: "ipam calico-ipam -> host-local on a running shoot is denied",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Update,
					testShoot{created: true, providerConfig: `{"ipam":{"type":"host-local"}}`},
					running(testShoot{providerConfig: `{"ipam":{"type":"calico-ipam"}}`}))
			},
			want: outcome{Code: http.StatusUnprocessableEntity, Causes: []metav1.StatusCause{
				{Type: metav1.CauseTypeForbidden, Field: "spec.networking.providerConfig.ipam.type"},
			}},
		},
		{
			name: "dropping vxlan on a running shoot changes the effective IPAM and is denied",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Update,
					testShoot{created: true, providerConfig: `{"overlay":{"enabled":true}}`},
					running(testShoot{providerConfig: `{"overlay":{"enabled":true},"vxlan":{"enabled":true}}`}))
			},
			want: outcome{Code: http.StatusUnprocessableEntity, Causes: []metav1.StatusCause{
				{Type: metav1.CauseTypeForbidden, Field: "spec.networking.providerConfig.ipam.type"},
			}},
		},
		{
			name: "ipam change on a hibernated shoot is allowed",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Update,
					testShoot{created: true, hibernated: true, providerConfig: `{"ipam":{"type":"host-local"}}`},
					&testShoot{created: true, hibernated: true, providerConfig: `{"ipam":{"type":"calico-ipam"}}`})
			},
			want: outcome{Allowed: true, Code: http.StatusOK},
		},
		{
			// Hibernation is values.HibernationWanted: a shoot waking up gets its nodes back.
			name: "ipam change on a shoot waking up is denied",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Update,
					testShoot{created: true, wakingUp: true, providerConfig: `{"ipam":{"type":"host-local"}}`},
					&testShoot{created: true, wakingUp: true, providerConfig: `{"ipam":{"type":"calico-ipam"}}`})
			},
			want: outcome{Code: http.StatusUnprocessableEntity, Causes: []metav1.StatusCause{
				{Type: metav1.CauseTypeForbidden, Field: "spec.networking.providerConfig.ipam.type"},
			}},
		},
		{
			name: "ipam change on a shoot that was never created is allowed",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Update,
					testShoot{providerConfig: `{"ipam":{"type":"host-local"}}`},
					&testShoot{providerConfig: `{"ipam":{"type":"calico-ipam"}}`})
			},
			want: outcome{Allowed: true, Code: http.StatusOK},
		},
		{
			name: "overlay off on a running shoot is allowed with a warning",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Update,
					testShoot{created: true, providerConfig: `{"overlay":{"enabled":false}}`},
					running(testShoot{providerConfig: `{"overlay":{"enabled":true}}`}))
			},
			want: outcome{Allowed: true, Code: http.StatusOK, Warnings: []string{"spec.networking.providerConfig.overlay.enabled"}},
		},
		{
			name: "typha off on a shoot that can grow to 60 nodes warns",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Update,
					testShoot{created: true, workerMaximums: []int{40, 20}, providerConfig: `{"typha":{"enabled":false}}`},
					running(testShoot{workerMaximums: []int{40, 20}}))
			},
			want: outcome{Allowed: true, Code: http.StatusOK, Warnings: []string{"spec.networking.providerConfig.typha.enabled"}},
		},
		{
			name: "typha off on a shoot of at most 10 nodes is silent",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Update,
					testShoot{created: true, workerMaximums: []int{10}, providerConfig: `{"typha":{"enabled":false}}`},
					running(testShoot{workerMaximums: []int{10}}))
			},
			want: outcome{Allowed: true, Code: http.StatusOK},
		},
		{
			name: "an old providerConfig that no longer decodes skips the comparison with a warning",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Update,
					testShoot{created: true, providerConfig: `{"ipam":{"type":"host-local"}}`},
					running(testShoot{providerConfig: `{"ipam":{"type":"calico-ipam"},"retired":true}`}))
			},
			want: outcome{Allowed: true, Code: http.StatusOK, Warnings: []string{"spec.networking.providerConfig"}},
		},
		{
			name: "switching a shoot to calico from another type has nothing to compare",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Update,
					testShoot{created: true, providerConfig: `{"ipam":{"type":"calico-ipam"}}`},
					running(testShoot{networkingType: "cilium"}))
			},
			want: outcome{Allowed: true, Code: http.StatusOK},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req(t)
			// Through admission.Webhook, as the server calls it, so the response is completed (UID, code).
			resp := NewWebhook().Handle(context.Background(), req)
			if resp.UID != req.UID {
				t.Errorf("response UID = %q, want %q", resp.UID, req.UID)
			}
			if diff := cmp.Diff(tt.want, outcomeOf(resp)); diff != "" {
				t.Errorf("outcome (-want +got):\n%s\nresult: %+v\nwarnings: %q", diff, resp.Result, resp.Warnings)
			}
			if !resp.Allowed && !strings.Contains(resp.Result.Message, `Shoot.core.gardener.cloud "crazy-botany" is invalid`) {
				t.Errorf("denial message %q does not name the Shoot", resp.Result.Message)
			}
		})
	}
}

func TestShootValidatorUndecodableOldShoot(t *testing.T) {
	req := request(t, admissionv1.Update, testShoot{created: true}, nil)
	req.OldObject = runtime.RawExtension{Raw: []byte(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Shoot","spec":{"provider":{"workers":"all"}}}`)}
	resp := NewWebhook().Handle(context.Background(), req)
	if !resp.Allowed {
		t.Fatalf("update denied: %+v", resp.Result)
	}
	if len(resp.Warnings) != 1 || !strings.HasPrefix(resp.Warnings[0], "the stored Shoot does not decode (spec.provider.workers: ") {
		t.Errorf("warnings = %q, want one saying the stored Shoot does not decode, naming spec.provider.workers", resp.Warnings)
	}
}

func TestShootValidatorIgnoresOtherKinds(t *testing.T) {
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:       "1",
		Kind:      metav1.GroupVersionKind{Group: "", Version: "v1", Kind: "ConfigMap"},
		Operation: admissionv1.Create,
		Object:    runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","data":{"x":"y"}}`)},
	}}
	resp := NewWebhook().Handle(context.Background(), req)
	if !resp.Allowed {
		t.Errorf("a ConfigMap was denied: %+v", resp.Result)
	}
}
