package controller

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
)

// nodeEnv returns the value of an env var of the stored calico-node container ("" when absent).
func (e *testEnv) nodeEnv(name string) string {
	e.t.Helper()
	ds := e.manifest()["DaemonSet/calico-node"]
	containers := ds["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
	for _, c := range containers {
		c := c.(map[string]any)
		if c["name"] != "calico-node" {
			continue
		}
		env, _ := c["env"].([]any)
		for _, v := range env {
			v := v.(map[string]any)
			if v["name"] == name {
				s, _ := v["value"].(string)
				return s
			}
		}
	}
	return ""
}

// cniIPAMType is the IPAM type in the stored CNI network configuration.
func (e *testEnv) cniIPAMType() string {
	e.t.Helper()
	cm := e.manifest()["ConfigMap/calico-config"]
	conf := cm["data"].(map[string]any)["cni_network_config"].(string)
	var conflist struct {
		Plugins []struct {
			IPAM struct {
				Type string `json:"type"`
			} `json:"ipam"`
		} `json:"plugins"`
	}
	// The template holds placeholders such as __CNI_MTU__ unquoted; only the ipam block matters.
	conf = strings.ReplaceAll(conf, "__CNI_MTU__", "0")
	if err := json.Unmarshal([]byte(conf), &conflist); err != nil {
		e.t.Fatalf("cni_network_config: %v\n%s", err, conf)
	}
	return conflist.Plugins[0].IPAM.Type
}

// TestReferenceAcceptedConfigsReconcile: every contradictory config that the reference
// accepted reaches Succeeded, with the ProviderConfigHonoured condition naming the fields, and
// deploys what the reference deployed.
func TestReferenceAcceptedConfigsReconcile(t *testing.T) {
	tests := []struct {
		name   string
		config string
		fields []string
		check  func(e *testEnv) string
	}{
		{
			name: "calico-ipam with cidr", config: "ipam:\n  type: calico-ipam\n  cidr: usePodCidr\n",
			fields: []string{"spec.providerConfig.ipam.cidr"},
			check: func(e *testEnv) string {
				if got := e.cniIPAMType(); got != "calico-ipam" {
					return "CNI ipam type " + got + ", want calico-ipam"
				}
				return ""
			},
		},
		{
			name: "overlay off with backend bird", config: "overlay:\n  enabled: false\nbackend: bird\n",
			fields: []string{"spec.providerConfig.backend"},
			check: func(e *testEnv) string {
				if got := e.manifest()["ConfigMap/calico-config"]["data"].(map[string]any)["calico_backend"]; got != "none" {
					return "calico_backend " + got.(string) + ", want none"
				}
				return ""
			},
		},
		{
			name: "overlay on with ipv4 mode Never", config: "overlay:\n  enabled: true\nipv4:\n  mode: Never\n",
			fields: []string{"spec.providerConfig.ipv4.mode"},
			check: func(e *testEnv) string {
				if got := e.nodeEnv("FELIX_IPINIPENABLED"); got != "true" {
					return "FELIX_IPINIPENABLED " + got + ", want true (the overlay wins, as in the reference)"
				}
				return ""
			},
		},
		{
			name: "vxlan with host-local", config: "vxlan:\n  enabled: true\nipam:\n  type: host-local\n",
			fields: []string{"spec.providerConfig.ipam.type"},
			check: func(e *testEnv) string {
				if got := e.cniIPAMType(); got != "calico-ipam" {
					return "CNI ipam type " + got + ", want calico-ipam"
				}
				return ""
			},
		},
		{
			name: "ipip disagreeing with ipv4.mode", config: "ipip: Never\nipv4:\n  mode: Always\n",
			fields: []string{"spec.providerConfig.ipip"},
			check: func(e *testEnv) string {
				if got := e.nodeEnv("CALICO_IPV4POOL_IPIP"); got != "Always" {
					return "CALICO_IPV4POOL_IPIP " + got + ", want Always"
				}
				return ""
			},
		},
		{
			name: "vpa mode on a shoot without VPA", config: "autoScaling:\n  mode: vpa\n",
			fields: []string{"spec.providerConfig.autoScaling.mode"},
			check: func(e *testEnv) string {
				if _, ok := e.manifest()["Deployment/calico-node-vertical-autoscaler"]; !ok {
					return "no calico-node CPVA (the reference fell back to cluster-proportional)"
				}
				return ""
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t, nil)
			log := startController(t, e.ns, controllerSetup{})
			e.createNetwork(providerConfig(tt.config))
			n := e.waitForOperation(log, nil, "Create", "Succeeded")
			cond := findCondition(n, "ProviderConfigHonoured")
			if cond == nil || cond.Status != "False" || cond.Reason != "ContradictoryFields" {
				t.Fatalf("condition ProviderConfigHonoured = %+v, want False/ContradictoryFields", cond)
			}
			for _, f := range tt.fields {
				if !strings.Contains(cond.Message, f) {
					t.Errorf("condition message %q does not name %s", cond.Message, f)
				}
			}
			if !strings.Contains(cond.Message, "as the reference did") {
				t.Errorf("condition message %q does not say what is deployed", cond.Message)
			}
			if msg := tt.check(e); msg != "" {
				t.Error(msg)
			}
			if valid := findCondition(n, "ConfigurationValid"); valid == nil || valid.Status != "True" {
				t.Errorf("ConfigurationValid = %+v, want True", valid)
			}
			if !strings.Contains(string(n.Status.ProviderStatus.Raw), `"compatibility":"Native"`) {
				t.Errorf("providerStatus %s does not record compatibility Native for a new Network", n.Status.ProviderStatus.Raw)
			}
		})
	}
}

// referenceLeftovers creates what the reference extension leaves in a control-plane namespace: its
// ManagedResource with a YAML manifest, and a Network whose provider status is only apiVersion and kind.
func (e *testEnv) referenceLeftovers(config string) {
	e.t.Helper()
	ctx := context.Background()
	legacy := "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: calico-node\n  namespace: kube-system\nspec:\n  template:\n    spec:\n      containers:\n      - name: calico-node\n        env:\n        - name: FELIX_IPINIPENABLED\n          value: \"true\"\n"
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: "managedresource-extension-networking-calico-config"}, Data: map[string][]byte{"config.yaml": []byte(legacy)}}
	if err := e.c.Create(ctx, secret); err != nil {
		e.t.Fatal(err)
	}
	mr := &resourcesv1alpha1.ManagedResource{
		ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: mrName},
		Spec:       resourcesv1alpha1.ManagedResourceSpec{SecretRefs: []corev1.LocalObjectReference{{Name: secret.Name}}, KeepObjects: ptr.To(false)},
	}
	if err := e.c.Create(ctx, mr); err != nil {
		e.t.Fatal(err)
	}
	e.createNetwork(providerConfig(config))
	e.patchStatus(func(n *extensionsv1alpha1.Network) {
		n.Status.ProviderStatus = &runtime.RawExtension{Raw: []byte(`{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkStatus"}`)}
	})
}

func (e *testEnv) patchStatus(mutate func(*extensionsv1alpha1.Network)) {
	e.t.Helper()
	n := e.network()
	mutate(n)
	if err := e.c.Status().Update(context.Background(), n); err != nil {
		e.t.Fatalf("updating Network status: %v", err)
	}
}

// TestSwapInFromReference: a Network last reconciled by the reference keeps the reference's data
// plane (compatibility Reference, recorded in the provider status, fields named in the condition)
// unless the operator opts in to honouring the ignored fields.
func TestSwapInFromReference(t *testing.T) {
	config := "overlay:\n  enabled: true\nipv4:\n  mode: CrossSubnet\n  autoDetectionMethod: interface=eth0\n"
	tests := []struct {
		name     string
		operator *configv1alpha1.ControllerConfiguration
		mode     string
		ipip     string
		auto     string
	}{
		{name: "reference kept", mode: "Reference", ipip: "Always", auto: "cidr=10.250.0.0/16"},
		{name: "operator honours ignored fields", mode: "Native", ipip: "CrossSubnet", auto: "interface=eth0",
			operator: &configv1alpha1.ControllerConfiguration{Compatibility: &configv1alpha1.Compatibility{HonourIgnoredFields: ptr.To(true)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t, nil)
			e.referenceLeftovers(config)
			log := startController(t, e.ns, controllerSetup{operator: tt.operator})
			n := e.waitForOperation(log, nil, "Create", "Succeeded")
			if !strings.Contains(string(n.Status.ProviderStatus.Raw), `"compatibility":"`+tt.mode+`"`) {
				t.Errorf("providerStatus %s, want compatibility %s", n.Status.ProviderStatus.Raw, tt.mode)
			}
			if got := e.nodeEnv("CALICO_IPV4POOL_IPIP"); got != tt.ipip {
				t.Errorf("CALICO_IPV4POOL_IPIP = %q, want %q", got, tt.ipip)
			}
			if got := e.nodeEnv("IP_AUTODETECTION_METHOD"); got != tt.auto {
				t.Errorf("IP_AUTODETECTION_METHOD = %q, want %q", got, tt.auto)
			}
			cond := findCondition(n, "ProviderConfigHonoured")
			if tt.mode == "Native" {
				if cond == nil || cond.Status != "True" {
					t.Errorf("ProviderConfigHonoured = %+v, want True", cond)
				}
				return
			}
			if cond == nil || cond.Status != "False" || cond.Reason != "IgnoredFields" {
				t.Fatalf("ProviderConfigHonoured = %+v, want False/IgnoredFields", cond)
			}
			for _, f := range []string{"spec.providerConfig.ipv4.mode", "spec.providerConfig.ipv4.autoDetectionMethod"} {
				if !strings.Contains(cond.Message, f) {
					t.Errorf("condition message %q does not name %s", cond.Message, f)
				}
			}

			// The recorded mode is kept: a later reconcile, with the reference's MR long replaced,
			// still ignores the fields.
			e.annotate("reconcile")
			e.waitForOperation(log, nil, "Reconcile", "Succeeded")
			if got := e.nodeEnv("CALICO_IPV4POOL_IPIP"); got != tt.ipip {
				t.Errorf("after a second reconcile CALICO_IPV4POOL_IPIP = %q, want %q", got, tt.ipip)
			}
		})
	}
}
