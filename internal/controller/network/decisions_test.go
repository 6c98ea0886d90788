package network

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// The actuator leaves the GlobalNetworkSet out and skips shoot checks by what the spec wants
// (values.HibernationWanted), not by the status. (Failed and force-deletion shoots are the generic
// lifecycle's: internal/extensions/network TestShootFacts.)
func TestHibernationWanted(t *testing.T) {
	for _, tt := range []struct {
		name         string
		specEnabled  *bool
		statusHibern bool
		want         bool
	}{
		{name: "plain"},
		{name: "hibernation wanted", specEnabled: ptr.To(true), want: true},
		{name: "waking up (status still hibernated)", specEnabled: ptr.To(false), statusHibern: true},
	} {
		s := &gardencorev1beta1.Shoot{}
		if tt.specEnabled != nil {
			s.Spec.Hibernation = &gardencorev1beta1.Hibernation{Enabled: tt.specEnabled}
		}
		s.Status.IsHibernated = tt.statusHibern
		if got := values.HibernationWanted(s); got != tt.want {
			t.Errorf("%s: HibernationWanted = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTTLRequeue(t *testing.T) {
	a := &Actuator{TTLRequeueMin: time.Minute, TTLRequeueMax: time.Hour}
	tests := []struct {
		addrs KubeAPIServerAddresses
		want  time.Duration
	}{
		{addrs: KubeAPIServerAddresses{Resolved: false, TTL: 0}, want: 0},
		{addrs: KubeAPIServerAddresses{Resolved: true, TTL: 0}, want: time.Minute},
		{addrs: KubeAPIServerAddresses{Resolved: true, TTL: 5 * time.Minute}, want: 5 * time.Minute},
		{addrs: KubeAPIServerAddresses{Resolved: true, TTL: 48 * time.Hour}, want: time.Hour},
	}
	for _, tt := range tests {
		if got := a.ttlRequeue(tt.addrs); got != tt.want {
			t.Errorf("ttlRequeue(%+v) = %s, want %s", tt.addrs, got, tt.want)
		}
	}
}

// The seed ManagedResource holds every seed object the renderer produces, placed in the
// control-plane namespace with its kind, and delete's list of directly written objects (a
// swap-in never reconciled) names every one of them.
func TestSeedObjectsData(t *testing.T) {
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	objs, err := render.SeedMonitoring(&values.Options{SeedNamespace: "shoot--p--s", BirdExporter: true})
	if err != nil {
		t.Fatal(err)
	}
	data, err := seedObjectsData(scheme, "shoot--p--s", objs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(data[ManagedResourceDataKey])), "\n") {
		var u map[string]any
		if err := json.Unmarshal([]byte(line), &u); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		md := u["metadata"].(map[string]any)
		got = append(got, fmt.Sprintf("%s %s %s/%s", u["apiVersion"], u["kind"], md["namespace"], md["name"]))
	}
	want := []string{
		"v1 ConfigMap shoot--p--s/calico-dashboards",
		"monitoring.coreos.com/v1alpha1 ScrapeConfig shoot--p--s/shoot-calico-bird",
		"monitoring.coreos.com/v1alpha1 ScrapeConfig shoot--p--s/shoot-calico-felix",
		"monitoring.coreos.com/v1alpha1 ScrapeConfig shoot--p--s/shoot-calico-typha",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("seed ManagedResource content (-want +got):\n%s", diff)
	}
	for _, obj := range objs {
		names := seedMonitoringScrapeConfigs()
		if _, ok := obj.(*corev1.ConfigMap); ok {
			names = seedMonitoringConfigMaps()
		}
		if !slices.Contains(names, obj.GetName()) {
			t.Errorf("%T %s may be rendered but delete does not remove it when written directly", obj, obj.GetName())
		}
	}
}

func TestPoolSyncDue(t *testing.T) {
	desired := []calicov1.IPPool{{ObjectMeta: metav1.ObjectMeta{Name: "default-ipv4-ippool"}, Spec: calicov1.IPPoolSpec{CIDR: "100.96.0.0/11", IPIPMode: "Always", VXLANMode: "Never"}}}
	recorded := []calicov1alpha1.IPPoolRecord{{Name: "default-ipv4-ippool", CIDR: "100.96.0.0/11", IPIPMode: "Always", VXLANMode: "Never"}}
	inSync := &gardencorev1beta1.Condition{Type: ConditionIPPools, Status: gardencorev1beta1.ConditionTrue, Reason: "InSync"}
	override := &gardencorev1beta1.Condition{Type: ConditionIPPools, Status: gardencorev1beta1.ConditionFalse, Reason: "OwnerOverride"}
	unreachable := &gardencorev1beta1.Condition{Type: ConditionIPPools, Status: gardencorev1beta1.ConditionUnknown, Reason: "ShootUnreachable"}
	hibernated := &gardencorev1beta1.Condition{Type: ConditionIPPools, Status: gardencorev1beta1.ConditionUnknown, Reason: "ShootHibernated"}
	tests := []struct {
		name  string
		asked bool
		prev  []calicov1alpha1.IPPoolRecord
		last  *gardencorev1beta1.Condition
		want  bool
	}{
		{name: "requeue, in sync", prev: recorded, last: inSync, want: false},
		{name: "requeue, owner override reported", prev: recorded, last: override, want: false},
		{name: "asked, in sync", asked: true, prev: recorded, last: inSync, want: true},
		{name: "requeue, first sync", want: true},
		{name: "requeue, no condition yet", prev: recorded, want: true},
		{name: "requeue, shoot was unreachable", prev: recorded, last: unreachable, want: true},
		{name: "requeue, woke up", prev: recorded, last: hibernated, want: true},
		{name: "requeue, pool not recorded", last: inSync, want: true},
	}
	for _, tt := range tests {
		if got := poolSyncDue(tt.asked, desired, tt.prev, tt.last); got != tt.want {
			t.Errorf("%s: poolSyncDue = %t, want %t", tt.name, got, tt.want)
		}
	}
}

// The cache keeps of a Cluster only what the reconcile decodes (the shoot), and of every other
// object everything but managedFields.
func TestClusterShootOnly(t *testing.T) {
	mf := []metav1.ManagedFieldsEntry{{Manager: "gardenlet"}}
	seed := kruntime.RawExtension{Raw: []byte(`{"kind":"Seed"}`)}
	c := &extensionsv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "shoot--p--s", ManagedFields: mf},
		Spec: extensionsv1alpha1.ClusterSpec{
			CloudProfile: kruntime.RawExtension{Raw: []byte(`{"kind":"CloudProfile","spec":{"machineImages":[]}}`)},
			Seed:         &seed,
			Shoot:        kruntime.RawExtension{Raw: []byte(`{"kind":"Shoot"}`)},
		},
	}
	out, err := clusterShootOnly(c)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*extensionsv1alpha1.Cluster)
	if got.ManagedFields != nil || got.Spec.CloudProfile.Raw != nil || got.Spec.Seed != nil || string(got.Spec.Shoot.Raw) != `{"kind":"Shoot"}` || got.Name != "shoot--p--s" {
		t.Errorf("cached Cluster = %+v", got)
	}
	n := &extensionsv1alpha1.Network{ObjectMeta: metav1.ObjectMeta{Name: "n", ManagedFields: mf}}
	out, err = clusterShootOnly(n)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*extensionsv1alpha1.Network); got.ManagedFields != nil || got.Name != "n" {
		t.Errorf("cached Network = %+v", got)
	}
}
