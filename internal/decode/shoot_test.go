package decode

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
)

func TestShootAndProviderConfig(t *testing.T) {
	tests := []struct {
		name         string
		input        string
		wantShootErr field.ErrorList
		wantCfg      *calicov1alpha1.NetworkConfig
		wantCfgErrs  field.ErrorList
	}{
		{
			name: "unknown shoot fields are ignored, providerConfig decoded",
			input: `apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata:
  name: a
spec:
  cloudProfileName: azure
  networking:
    type: calico
    providerConfig:
      apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
      kind: NetworkConfig
      vethMTU: "1440"
`,
			wantCfg: &calicov1alpha1.NetworkConfig{
				TypeMeta: metav1.TypeMeta{APIVersion: "calico.networking.extensions.gardener.cloud/v1alpha1", Kind: "NetworkConfig"},
				VethMTU:  func() *string { s := "1440"; return &s }(),
			},
		},
		{
			name: "unknown providerConfig field is rooted at spec.networking.providerConfig",
			input: `apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
spec:
  networking:
    type: calico
    providerConfig:
      apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
      kind: NetworkConfig
      overlay:
        enabeld: true
`,
			wantCfgErrs: field.ErrorList{field.Forbidden(field.NewPath("spec", "networking", "providerConfig", "overlay", "enabeld"),
				`unknown field "enabeld" (did you mean "enabled"?); known fields of spec.networking.providerConfig.overlay: createPodRoutes, enabled`)},
		},
		{
			name: "no providerConfig",
			input: `apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
spec:
  networking:
    type: calico
`,
		},
		{
			name: "modelled shoot field of the wrong type",
			input: `apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
spec:
  networking:
    ipFamilies: IPv4
`,
			wantShootErr: field.ErrorList{field.TypeInvalid(field.NewPath("spec", "networking", "ipFamilies"), "IPv4", "must be a list, not a string")},
		},
		{
			name: "wrong types inside lists and maps of a shoot",
			input: `apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
spec:
  provider:
    workers:
    - name: a
    - name: [b]
  kubernetes:
    kubeAPIServer:
      featureGates:
        MutatingAdmissionPolicy: "true"
`,
			wantShootErr: field.ErrorList{
				field.TypeInvalid(field.NewPath("spec", "kubernetes", "kubeAPIServer", "featureGates").Key("MutatingAdmissionPolicy"), "true", "must be a boolean (true or false), not a string"),
				field.TypeInvalid(field.NewPath("spec", "provider", "workers").Index(1).Child("name"), []any{"b"}, "must be a string, not a list"),
			},
		},
		{
			name:         "not a shoot",
			input:        `{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Seed"}`,
			wantShootErr: field.ErrorList{field.NotSupported(field.NewPath("kind"), "Seed", []string{"Shoot"})},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shoot, errs := Shoot([]byte(tt.input))
			if diff := cmp.Diff(tt.wantShootErr, errs); diff != "" {
				t.Fatalf("Shoot() errors mismatch (-want +got):\n%s", diff)
			}
			if errs != nil {
				if shoot != nil {
					t.Errorf("Shoot() returned an object together with errors")
				}
				return
			}
			cfg, cfgErrs := ShootNetworkConfig(shoot)
			if diff := cmp.Diff(tt.wantCfgErrs, cfgErrs); diff != "" {
				t.Errorf("ShootNetworkConfig() errors mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCfg, cfg); diff != "" {
				t.Errorf("ShootNetworkConfig() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestControllerConfiguration(t *testing.T) {
	enabled := true
	tests := []struct {
		name     string
		input    string
		want     *configv1alpha1.ControllerConfiguration
		wantErrs field.ErrorList
	}{
		{
			name: "full",
			input: `apiVersion: calico.networking.extensions.config.gardener.cloud/v1alpha1
kind: ControllerConfiguration
clientConnection:
  acceptContentTypes: application/json
  contentType: application/json
  qps: 100
  burst: 130
featureGates:
  SeamlessOverlaySwitch: true
kubeAPIServerGlobalNetworkSet:
  enabled: true
`,
			want: &configv1alpha1.ControllerConfiguration{
				TypeMeta: metav1.TypeMeta{APIVersion: "calico.networking.extensions.config.gardener.cloud/v1alpha1", Kind: "ControllerConfiguration"},
				ClientConnection: &componentbaseconfigv1alpha1.ClientConnectionConfiguration{
					AcceptContentTypes: "application/json", ContentType: "application/json", QPS: 100, Burst: 130,
				},
				FeatureGates:                  map[string]bool{"SeamlessOverlaySwitch": true},
				KubeAPIServerGlobalNetworkSet: &configv1alpha1.KubeAPIServerGlobalNetworkSet{Enabled: &enabled},
			},
		},
		{
			name: "healthCheckConfig is not silently ignored",
			input: `apiVersion: calico.networking.extensions.config.gardener.cloud/v1alpha1
kind: ControllerConfiguration
healthCheckConfig:
  syncPeriod: 30s
`,
			wantErrs: field.ErrorList{field.Forbidden(field.NewPath("healthCheckConfig"), `unknown field "healthCheckConfig"; known fields of the document: apiVersion, calico, clientConnection, compatibility, featureGates, kind, kubeAPIServerGlobalNetworkSet`)},
		},
		{
			name: "feature gate value of the wrong type",
			input: `apiVersion: calico.networking.extensions.config.gardener.cloud/v1alpha1
kind: ControllerConfiguration
featureGates:
  SeamlessOverlaySwitch: "on"
`,
			wantErrs: field.ErrorList{field.TypeInvalid(field.NewPath("featureGates").Key("SeamlessOverlaySwitch"), "on", "must be a boolean (true or false), not a string")},
		},
		{
			name:     "reference default kind Config is not accepted",
			input:    `{"apiVersion":"calico.networking.extensions.config.gardener.cloud/v1alpha1","kind":"Config"}`,
			wantErrs: field.ErrorList{field.NotSupported(field.NewPath("kind"), "Config", []string{"ControllerConfiguration"})},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := ControllerConfiguration([]byte(tt.input))
			if diff := cmp.Diff(tt.wantErrs, errs); diff != "" {
				t.Errorf("errors mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("object mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitDocuments(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		want    []Document
		wantErr string
	}{
		{
			name: "two documents, empty and comment-only ones skipped",
			input: `---
# just a comment
---
apiVersion: v1
kind: A
metadata: {name: x, namespace: ns}
---
---
{"apiVersion": "v2", "kind": "B"}
`,
			want: []Document{
				{Index: 0, JSON: []byte(`{"apiVersion":"v1","kind":"A","metadata":{"name":"x","namespace":"ns"}}`), APIVersion: "v1", Kind: "A", Name: "x", Namespace: "ns"},
				{Index: 1, JSON: []byte(`{"apiVersion":"v2","kind":"B"}`), APIVersion: "v2", Kind: "B"},
			},
		},
		{name: "empty input", input: "", want: nil},
		{name: "duplicate key", input: "a: 1\na: 2\n", wantErr: `document 1 is not valid YAML: yaml: unmarshal errors:
  line 2: key "a" already set in map`},
		{name: "broken YAML in second document", input: "a: 1\n---\nb: [\n", wantErr: "document 2 is not valid YAML: yaml: line 3: did not find expected node content"},
		{name: "a list", input: "- a\n- b\n", wantErr: "document 1 is not a YAML mapping (an object with apiVersion and kind)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SplitDocuments([]byte(tt.input))
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr {
				t.Fatalf("error = %q, want %q", gotErr, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("documents mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// An integer too large for its field is reported at its path, with the range (issue 15: the JSON
// decoder's error lost the list index and the value, and the message said "not null").
func TestIntegerOverflow(t *testing.T) {
	tests := []struct {
		name, maximum string
		want          string
	}{
		{"int32 + 1", "2147483648", "spec.provider.workers[1].maximum: Invalid value: 2147483648: must be an integer from -2147483648 to 2147483647"},
		{"int32 - 1", "-2147483649", "spec.provider.workers[1].maximum: Invalid value: -2147483649: must be an integer from -2147483648 to 2147483647"},
		{"beyond int64", "99999999999999999999", "spec.provider.workers[1].maximum: Invalid value: 1e+20: must be an integer, not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := `{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Shoot","spec":{"provider":{"workers":[` +
				`{"name":"a","maximum":3},{"name":"b","maximum":` + tt.maximum + `}]}}}`
			_, errs := Shoot([]byte(input))
			if len(errs) != 1 || errs[0].Error() != tt.want {
				t.Fatalf("errors = %v, want %s", errs, tt.want)
			}
		})
	}
	if _, errs := Shoot([]byte(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Shoot","spec":{"provider":{"workers":[{"name":"a","maximum":2147483647}]}}}`)); len(errs) > 0 {
		t.Errorf("the largest int32 is refused: %v", errs)
	}
}
