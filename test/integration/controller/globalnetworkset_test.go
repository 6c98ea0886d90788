package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

const gnsOn = "kubeAPIServerGlobalNetworkSet:\n  enabled: true\n"

// createDNSRecord creates a kube-apiserver DNSRecord the way the gardenlet does.
func (e *testEnv) createDNSRecord(role, recordType string, values ...string) {
	e.t.Helper()
	r := &extensionsv1alpha1.DNSRecord{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: e.ns, Name: networkName + "-" + role,
			Labels: map[string]string{"gardener.cloud/role": "controlplane", "role": role},
		},
		Spec: extensionsv1alpha1.DNSRecordSpec{
			DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: "local"},
			SecretRef:   corev1SecretRef("dnsrecord-" + networkName + "-" + role),
			Name:        "api." + role + ".example.com",
			RecordType:  extensionsv1alpha1.DNSRecordType(recordType),
			Values:      values,
			TTL:         ptr.To[int64](120),
		},
	}
	if err := e.c.Create(context.Background(), r); err != nil {
		e.t.Fatalf("creating DNSRecord: %v", err)
	}
}

// globalNetworkSet returns the stored set's labels and nets, or ok=false when it is not stored.
func (e *testEnv) globalNetworkSet() (labels map[string]any, nets []any, ok bool) {
	e.t.Helper()
	obj, ok := e.manifest()["GlobalNetworkSet/gardener-kube-apiserver"]
	if !ok {
		return nil, nil, false
	}
	md := obj["metadata"].(map[string]any)
	labels, _ = md["labels"].(map[string]any)
	spec, _ := obj["spec"].(map[string]any)
	nets, _ = spec["nets"].([]any)
	return labels, nets, true
}

// TestGlobalNetworkSetAddresses: A and AAAA values are used as they are, CNAME values are resolved
// by the configured nameserver; the set carries exactly the contract label.
func TestGlobalNetworkSetAddresses(t *testing.T) {
	tests := []struct {
		name     string
		records  func(e *testEnv)
		dns      []string
		wantNets []any
	}{
		{
			name: "A records of internal and external",
			records: func(e *testEnv) {
				e.createDNSRecord("internal", "A", "192.0.2.34")
				e.createDNSRecord("external", "A", "192.0.2.34")
			},
			wantNets: []any{"192.0.2.34/32"},
		},
		{
			name:     "AAAA record",
			records:  func(e *testEnv) { e.createDNSRecord("external", "AAAA", "2001:db8::34") },
			wantNets: []any{"2001:db8::34/128"},
		},
		{
			name:    "CNAME resolved through the nameserver",
			records: func(e *testEnv) { e.createDNSRecord("external", "CNAME", "lb.example.net") },
			dns: []string{
				"lb.example.net. 300 IN CNAME lb-1.example.net.",
				"lb-1.example.net. 60 IN A 198.51.100.11",
				"lb-1.example.net. 60 IN A 198.51.100.10",
			},
			wantNets: []any{"198.51.100.10/32", "198.51.100.11/32"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startDNS(t)
			srv.set(t, tt.dns...)
			e := newTestEnv(t, nil)
			tt.records(e)
			log := startController(t, e.ns, controllerSetup{dnsServer: srv.addr})
			e.createNetwork(providerConfig(gnsOn))
			n := e.waitForOperation(log, nil, "Create", "Succeeded")
			labels, nets, ok := e.globalNetworkSet()
			if !ok {
				t.Fatal("GlobalNetworkSet gardener-kube-apiserver not stored")
			}
			if diff := cmp.Diff(map[string]any{"networking.gardener.cloud/endpoint": "kube-apiserver"}, labels); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantNets, nets); diff != "" {
				t.Errorf("nets (-want +got):\n%s", diff)
			}
			if c := findCondition(n, "KubeAPIServerGlobalNetworkSetReady"); c == nil || c.Status != "True" || c.Reason != "Published" {
				t.Errorf("condition = %+v, want True/Published", c)
			}
		})
	}
}

// TestGlobalNetworkSetTTLRequeue: after a CNAME was resolved the Network is reconciled again within
// the TTL (bounded below by 1s here), without any annotation, and picks up the new address.
func TestGlobalNetworkSetTTLRequeue(t *testing.T) {
	srv := startDNS(t)
	srv.set(t, "lb.example.net. 2 IN A 198.51.100.10")
	e := newTestEnv(t, nil)
	e.createDNSRecord("external", "CNAME", "lb.example.net")
	log := startController(t, e.ns, controllerSetup{dnsServer: srv.addr})
	e.createNetwork(providerConfig(gnsOn))
	e.waitForOperation(log, nil, "Create", "Succeeded")
	if _, nets, _ := e.globalNetworkSet(); !cmp.Equal(nets, []any{"198.51.100.10/32"}) {
		t.Fatalf("nets = %v, want [198.51.100.10/32]", nets)
	}

	// The load balancer moves; nothing changes on the DNSRecord or the Network.
	srv.set(t, "lb.example.net. 2 IN A 198.51.100.20")
	e.waitFor("the new load balancer address in the stored set", func() (bool, error) {
		_, nets, _ := e.globalNetworkSet()
		return cmp.Equal(nets, []any{"198.51.100.20/32"}), nil
	})

	// The name stops resolving: the reconcile fails and the stored set keeps the last good addresses.
	srv.setSilent(true)
	n := e.waitForOperation(log, nil, "Reconcile", "Error")
	if !strings.Contains(n.Status.LastError.Description, `DNSRecord demo-external (CNAME "lb.example.net")`) {
		t.Errorf("lastError %q does not name the record", n.Status.LastError.Description)
	}
	if _, nets, _ := e.globalNetworkSet(); !cmp.Equal(nets, []any{"198.51.100.20/32"}) {
		t.Errorf("nets after a failed resolution = %v, want the last good [198.51.100.20/32]", nets)
	}
}

// TestGlobalNetworkSetUndeterminable: no DNSRecord, or a nameserver that answers nothing, fails the
// reconcile with a retriable error saying why, and nothing is stored.
func TestGlobalNetworkSetUndeterminable(t *testing.T) {
	tests := []struct {
		name     string
		records  func(e *testEnv)
		silent   bool
		wantText string
	}{
		{name: "no DNSRecords", records: func(*testEnv) {}, wantText: "no DNSRecord labelled gardener.cloud/role=controlplane,role in (external,internal)"},
		{name: "nameserver answers nothing", records: func(e *testEnv) { e.createDNSRecord("internal", "CNAME", "lb.example.net") }, silent: true,
			wantText: `DNSRecord demo-internal (CNAME "lb.example.net")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startDNS(t)
			srv.setSilent(tt.silent)
			e := newTestEnv(t, nil)
			tt.records(e)
			log := startController(t, e.ns, controllerSetup{dnsServer: srv.addr})
			e.createNetwork(providerConfig(gnsOn))
			n := e.waitForOperation(log, nil, "Create", "Error")
			le := n.Status.LastError
			if !strings.HasPrefix(le.Description, "Error reconciling Network: determining kube-apiserver addresses for the GlobalNetworkSet: ") || !strings.Contains(le.Description, tt.wantText) {
				t.Errorf("lastError = %q, want the address error with %q", le.Description, tt.wantText)
			}
			if diff := cmp.Diff([]gardencorev1beta1.ErrorCode{"ERR_RETRYABLE_CONFIGURATION_PROBLEM"}, le.Codes); diff != "" {
				t.Errorf("codes (-want +got):\n%s", diff)
			}
			if c := findCondition(n, "KubeAPIServerGlobalNetworkSetReady"); c == nil || c.Status != "False" || c.Reason != "AddressesUnavailable" {
				t.Errorf("condition = %+v, want False/AddressesUnavailable", c)
			}
			if e.managedResource() != nil {
				t.Error("ManagedResource stored although the addresses are unknown")
			}
		})
	}
}

// TestGlobalNetworkSetHibernation: a hibernated shoot (its DNSRecords destroyed) reconciles without
// the set and without an error; the first reconcile after wake-up puts the set back.
func TestGlobalNetworkSetHibernation(t *testing.T) {
	srv := startDNS(t)
	e := newTestEnv(t, func(s *gardencorev1beta1.Shoot) {
		s.Spec.Hibernation = &gardencorev1beta1.Hibernation{Enabled: ptr.To(true)}
		s.Status.IsHibernated = true
	})
	log := startController(t, e.ns, controllerSetup{dnsServer: srv.addr})
	e.createNetwork(providerConfig(gnsOn))
	n := e.waitForOperation(log, nil, "Create", "Succeeded")
	if _, _, ok := e.globalNetworkSet(); ok {
		t.Error("GlobalNetworkSet stored for a hibernated shoot")
	}
	if c := findCondition(n, "KubeAPIServerGlobalNetworkSetReady"); c == nil || c.Reason != "ShootHibernated" {
		t.Errorf("condition = %+v, want reason ShootHibernated", c)
	}

	// Wake-up: the gardenlet recreates the DNSRecords and reconciles the Network while the shoot's
	// status still says hibernated.
	shoot := baseShoot()
	shoot.Spec.Hibernation = &gardencorev1beta1.Hibernation{Enabled: ptr.To(false)}
	shoot.Status.IsHibernated = true
	e.setShoot(shoot)
	e.createDNSRecord("internal", "A", "192.0.2.34")
	before := log.Snapshot()
	e.annotate("reconcile")
	n = e.waitForOperation(log, before, "Reconcile", "Succeeded")
	_, nets, ok := e.globalNetworkSet()
	if !ok || !cmp.Equal(nets, []any{"192.0.2.34/32"}) {
		t.Errorf("after wake-up: set stored %v with nets %v, want [192.0.2.34/32]", ok, nets)
	}
	if c := findCondition(n, "KubeAPIServerGlobalNetworkSetReady"); c == nil || c.Status != "True" {
		t.Errorf("condition after wake-up = %+v, want True", c)
	}
}

// TestGlobalNetworkSetPrecedence: providerConfig wins, else the operator default, else off.
func TestGlobalNetworkSetPrecedence(t *testing.T) {
	tests := []struct {
		operator *bool
		shoot    *bool
		want     bool
	}{
		{operator: nil, shoot: nil, want: false},
		{operator: ptr.To(true), shoot: nil, want: true},
		{operator: ptr.To(false), shoot: nil, want: false},
		{operator: ptr.To(true), shoot: ptr.To(false), want: false},
		{operator: ptr.To(false), shoot: ptr.To(true), want: true},
		{operator: nil, shoot: ptr.To(true), want: true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("operator=%s,providerConfig=%s", show(tt.operator), show(tt.shoot)), func(t *testing.T) {
			srv := startDNS(t)
			e := newTestEnv(t, nil)
			e.createDNSRecord("internal", "A", "192.0.2.34")
			operator := &configv1alpha1.ControllerConfiguration{}
			if tt.operator != nil {
				operator.KubeAPIServerGlobalNetworkSet = &configv1alpha1.KubeAPIServerGlobalNetworkSet{Enabled: tt.operator}
			}
			log := startController(t, e.ns, controllerSetup{dnsServer: srv.addr, operator: operator})
			body := "overlay:\n  enabled: true\n"
			if tt.shoot != nil {
				body += fmt.Sprintf("kubeAPIServerGlobalNetworkSet:\n  enabled: %t\n", *tt.shoot)
			}
			e.createNetwork(providerConfig(body))
			e.waitForOperation(log, nil, "Create", "Succeeded")
			if _, _, got := e.globalNetworkSet(); got != tt.want {
				t.Errorf("set stored = %v, want %v", got, tt.want)
			}
		})
	}
}

func show(b *bool) string {
	if b == nil {
		return "unset"
	}
	return fmt.Sprint(*b)
}
