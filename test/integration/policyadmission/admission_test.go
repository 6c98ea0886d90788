package policyadmission

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	projectcalicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/render"
)

// warnings collects the warnings the API server returns.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.list
	w.list = nil
	return out
}

func newClient(t *testing.T) (client.Client, *warnings) {
	t.Helper()
	w := &warnings{}
	cfg := rest.CopyConfig(controlPlane.Config)
	cfg.WarningHandler = w
	scheme, err := frameworkScheme()
	if err != nil {
		t.Fatal(err)
	}
	cl, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return cl, w
}

func seedPolicy(name string) *projectcalicov1.GlobalNetworkPolicy {
	port := intstr.FromInt32(443)
	tcp := intstr.FromString("TCP")
	return &projectcalicov1.GlobalNetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: projectcalicov1.GlobalNetworkPolicySpec{
			Order:    ptr.To(100.0),
			Selector: "all()",
			Types:    []projectcalicov1.PolicyType{projectcalicov1.PolicyTypeEgress},
			Egress: []projectcalicov1.Rule{
				{Action: projectcalicov1.ActionAllow, Protocol: &tcp, Destination: projectcalicov1.EntityRule{
					Services: &projectcalicov1.ServiceMatch{Name: "kubernetes", Namespace: "default"}}},
				{Action: projectcalicov1.ActionAllow, Protocol: &tcp, Destination: projectcalicov1.EntityRule{
					Selector: "networking.gardener.cloud/endpoint == 'kube-apiserver'", Ports: []intstr.IntOrString{port}}},
			},
		},
	}
}

// install creates the rendered policy and binding and waits until the API server enforces them
// (policies are loaded asynchronously): until a probe policy without types is rejected (Deny) or
// admitted with a warning (Warn).
func install(ctx context.Context, t *testing.T, cl client.Client, w *warnings, action calicov1alpha1.PolicyValidationMode) {
	t.Helper()
	objs, err := render.PolicyAdmission(action)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if err := cl.Create(ctx, o); err != nil {
			t.Fatalf("creating %s: %v", o.GetName(), err)
		}
		t.Cleanup(func() { _ = cl.Delete(context.Background(), o) })
	}
	probe := 0
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		probe++
		p := seedPolicy(fmt.Sprintf("probe-%s-%d", strings.ToLower(string(action)), probe))
		p.Spec.Types = nil
		err := cl.Create(ctx, p)
		if err == nil {
			_ = cl.Delete(ctx, p)
			// Warn is in force once the probe is admitted with a warning.
			return action == "Warn" && len(w.take()) > 0, nil
		}
		// Deny is in force once the probe is rejected; in Warn mode a rejection is a previous test's
		// Deny binding the API server has not dropped yet.
		w.take()
		return action == "Deny" && apierrors.IsInvalid(err), nil
	})
	if err != nil {
		t.Fatalf("the ValidatingAdmissionPolicy was not enforced after %d probes: %v", probe, err)
	}
	w.take()
}

func TestDenyRejectsInvalidPoliciesNamingTheField(t *testing.T) {
	ctx := context.Background()
	cl, w := newClient(t)
	install(ctx, t, cl, w, "Deny")

	valid := seedPolicy("seed-004-example")
	if err := cl.Create(ctx, valid); err != nil {
		t.Fatalf("the seed 004 example policy is rejected: %v", err)
	}
	t.Cleanup(func() { _ = cl.Delete(context.Background(), valid) })

	tests := []struct {
		name   string
		mutate func(*projectcalicov1.GlobalNetworkPolicy)
		want   string
	}{
		{"no types", func(p *projectcalicov1.GlobalNetworkPolicy) { p.Spec.Types = nil }, "spec.types is required"},
		{"no selector", func(p *projectcalicov1.GlobalNetworkPolicy) { p.Spec.Selector = "" }, "spec.selector is required"},
		{"no order", func(p *projectcalicov1.GlobalNetworkPolicy) { p.Spec.Order = nil }, "spec.order is required"},
		{"invalid selector", func(p *projectcalicov1.GlobalNetworkPolicy) { p.Spec.Selector = "app = 'web'" }, "spec.selector is not a valid Calico selector"},
		{"invalid rule selector", func(p *projectcalicov1.GlobalNetworkPolicy) {
			p.Spec.Egress[1].Destination.Selector = "networking.gardener.cloud/endpoint == kube-apiserver"
		}, "spec.egress: a selector of a rule is not a valid Calico selector"},
		{"ports without protocol", func(p *projectcalicov1.GlobalNetworkPolicy) { p.Spec.Egress[1].Protocol = nil }, "spec.egress: a rule with ports needs protocol TCP, UDP or SCTP"},
		{"ICMP fields with TCP", func(p *projectcalicov1.GlobalNetworkPolicy) {
			p.Spec.Egress[0].ICMP = &projectcalicov1.ICMPFields{Type: ptr.To(8)}
		}, "spec.egress: ICMP type and code need protocol ICMP or ICMPv6"},
		{"egress rules outside types", func(p *projectcalicov1.GlobalNetworkPolicy) {
			p.Spec.Types = []projectcalicov1.PolicyType{projectcalicov1.PolicyTypeIngress}
		}, "spec.egress: types does not include Egress"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := seedPolicy("invalid-" + string(rune('a'+i)))
			tt.mutate(p)
			err := cl.Create(ctx, p)
			if err == nil {
				_ = cl.Delete(ctx, p)
				t.Fatalf("created, want rejection with %q", tt.want)
			}
			if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want Invalid containing %q", err, tt.want)
			}
		})
	}
}

func TestWarnAdmitsWithAWarning(t *testing.T) {
	ctx := context.Background()
	cl, w := newClient(t)
	install(ctx, t, cl, w, "Warn")

	p := seedPolicy("warned")
	p.Spec.Order = nil
	if err := cl.Create(ctx, p); err != nil {
		t.Fatalf("Warn mode rejected the policy: %v", err)
	}
	t.Cleanup(func() { _ = cl.Delete(context.Background(), p) })
	got := strings.Join(w.take(), "\n")
	if !strings.Contains(got, "spec.order is required") {
		t.Errorf("warnings = %q, want one naming spec.order", got)
	}

	valid := seedPolicy("not-warned")
	if err := cl.Create(ctx, valid); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Delete(context.Background(), valid) })
	if got := w.take(); len(got) != 0 {
		t.Errorf("warnings for a valid policy: %q", got)
	}
}
