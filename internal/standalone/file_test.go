package standalone

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func TestReadFileErrorsNameTheField(t *testing.T) {
	head := "apiVersion: standalone.calico-pilot.dev/v1alpha1\nkind: Cluster\n"
	cases := []struct {
		name, file string
		want       []string
	}{
		{"misspelt fact", head + "cluster:\n  podCidr: 10.0.0.0/16\n",
			[]string{`cluster.podCidr: Forbidden: unknown field "podCidr" (did you mean "podCIDR"?); known fields of cluster: ipFamilies, kubeProxy, kubernetesVersion, nodeCIDR, podCIDR, serviceCIDR`}},
		{"wrong type", head + "cluster:\n  ipFamilies: IPv4\n",
			[]string{`cluster.ipFamilies: Invalid value: "IPv4": must be a list, not a string`}},
		{"bad CIDR", head + "cluster:\n  podCIDR: 10.0.0.0/33\n",
			[]string{`cluster.podCIDR: Invalid value: "10.0.0.0/33": not a CIDR: "10.0.0.0/33"`}},
		{"bad mode", head + "cluster:\n  kubeProxy:\n    mode: iptables\n",
			[]string{`cluster.kubeProxy.mode: Unsupported value: "iptables": supported values: "IPTables", "IPVS", "NFTables"`}},
		{"bad version", head + "cluster:\n  kubernetesVersion: \"1.34\"\n",
			[]string{`cluster.kubernetesVersion: Invalid value: "1.34": must be MAJOR.MINOR.PATCH, e.g. 1.33.2`}},
		{"wrong kind", "apiVersion: v1\nkind: ConfigMap\n",
			[]string{`apiVersion: Unsupported value: "v1": supported values: "standalone.calico-pilot.dev/v1alpha1"`, `kind: Unsupported value: "ConfigMap": supported values: "Cluster"`}},
		{"NetworkConfig field", head + "networkConfig:\n  apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\n  kind: NetworkConfig\n  backendd: bird\n",
			[]string{`networkConfig.backendd: `}},
		{"another name", head + "metadata:\n  name: prod\n",
			[]string{`metadata.name: Unsupported value: "prod": supported values: "default"`}},
		{"a status", head + "status:\n  release: v3.31.7\n",
			[]string{`status: Forbidden: the status is written by calico-pilot manage: leave it out of the file`}},
		{"whisker without goldmane", head + "components:\n  whisker:\n    enabled: true\n",
			[]string{`components.whisker.enabled: Invalid value: true: whisker needs goldmane, where it reads its flows from: set components.goldmane.enabled: true, or components.whisker.enabled: false`}},
		{"misspelt component", head + "components:\n  goldMane:\n    enabled: true\n",
			[]string{`components.goldMane: Forbidden: unknown field "goldMane" (did you mean "goldmane"?)`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, errs := ReadFile("cluster.yaml", []byte(tc.file))
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if len(got) != len(tc.want) {
				t.Fatalf("errors %q, want %q", got, tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("error %q, want it to start with %q", got[i], tc.want[i])
				}
			}
		})
	}
}

func TestCompleteTakesMissingFactsFromTheCluster(t *testing.T) {
	obs := Observed{KubernetesVersion: "1.34.3", PodCIDR: "10.244.0.0/16", PodCIDRSource: "kubeadm",
		ServiceCIDR: "10.96.0.0/12", ServiceCIDRSource: "kubeadm",
		NodePodCIDRs: map[string][]string{"a": {"10.244.1.0/24"}}, KubeProxy: &FileKubeProxy{Enabled: ptr.To(true), Mode: "IPVS"}}
	f, errs := Complete(FileFacts{NodeCIDR: "192.168.0.0/24"}, obs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := []any{f.KubernetesVersion, f.PodCIDRs[0].String(), f.ServiceCIDR, f.NodeCIDR, f.IPFamilies, f.KubeProxyEnabled, f.KubeProxyMode}
	want := []any{"1.34.3", "10.244.0.0/16", "10.96.0.0/12", "192.168.0.0/24", []string{"IPv4"}, true, "IPVS"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("facts (-want +got):\n%s", d)
	}

	// Same minor version is no contradiction (a patch the file does not track).
	if _, errs := Complete(FileFacts{KubernetesVersion: "1.34.1"}, obs); len(errs) > 0 {
		t.Errorf("1.34.1 vs 1.34.3: %v", errs)
	}
	_, errs = Complete(FileFacts{KubernetesVersion: "1.33.2", KubeProxy: &FileKubeProxy{Enabled: ptr.To(false)}}, obs)
	var fields []string
	for _, e := range errs {
		fields = append(fields, e.Field)
	}
	if d := cmp.Diff([]string{"cluster.kubernetesVersion", "cluster.kubeProxy.enabled"}, fields); d != "" {
		t.Errorf("contradictions (-want +got):\n%s", d)
	}
	_, errs = Complete(FileFacts{}, Observed{})
	fields = nil
	for _, e := range errs {
		fields = append(fields, e.Field)
	}
	if d := cmp.Diff([]string{"cluster.kubernetesVersion", "cluster.podCIDR"}, fields); d != "" {
		t.Errorf("missing facts (-want +got):\n%s", d)
	}
}

func TestFilePathMapsShootPathsToTheFile(t *testing.T) {
	for in, want := range map[string]string{
		"spec.networking.providerConfig.ipv4.mode": "networkConfig.ipv4.mode",
		"spec.networking.pods":                     "cluster.podCIDR",
		"spec.kubernetes.kubeProxy.mode":           "cluster.kubeProxy.mode",
		"spec.networking.ipFamilies[1]":            "cluster.ipFamilies[1]",
		"spec.networking.podsX":                    "spec.networking.podsX",
	} {
		if got := FilePath(in); got != want {
			t.Errorf("FilePath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFileErrorsMapPathsInTheText(t *testing.T) {
	in := field.ErrorList{field.Forbidden(field.NewPath("spec", "kubernetes", "kubeProxy", "enabled"),
		"set spec.networking.providerConfig.ebpfDataplane.enabled: true, or spec.networking.ipFamilies[1] (spec.networking.podsX stays)")}
	want := "cluster.kubeProxy.enabled: Forbidden: set networkConfig.ebpfDataplane.enabled: true, or cluster.ipFamilies[1] (spec.networking.podsX stays)"
	if got := FileErrors(in)[0].Error(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if in[0].Detail != "set spec.networking.providerConfig.ebpfDataplane.enabled: true, or spec.networking.ipFamilies[1] (spec.networking.podsX stays)" {
		t.Errorf("FileErrors changed its input: %q", in[0].Detail)
	}
}

// TestReadFileEmptyAndBare: an empty file is refused at its name, saying what it must hold; a bare
// NetworkConfig is read as a Cluster with that networkConfig and no facts, and its errors are rooted
// where the user wrote the values (the top level), in the field and in the text.
func TestReadFileEmptyAndBare(t *testing.T) {
	wantEmpty := []string{"empty.yaml: Required value: the file is empty: a cluster file is an object with apiVersion standalone.calico-pilot.dev/v1alpha1 and kind Cluster " +
		"(networkConfig and cluster facts, docs/standalone.md), or a bare NetworkConfig"}
	for _, data := range []string{"", "\n  \n", "# nothing yet\n---\n"} {
		if _, _, errs := ReadFile("empty.yaml", []byte(data)); cmp.Diff(wantEmpty, errorStrings(errs)) != "" {
			t.Errorf("file %q: errors %q, want %q", data, errorStrings(errs), wantEmpty)
		}
	}

	nc := "apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\nkind: NetworkConfig\n"
	f, cfg, errs := ReadFile("nc.yaml", []byte(nc+"backend: vxlan\nipv4:\n  mode: Sometimes\n"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if !f.Bare || f.APIVersion != FileAPIVersion || f.Kind != FileKind || cfg.Backend == nil || string(*cfg.Backend) != "vxlan" || !cmp.Equal(f.Facts, FileFacts{}) {
		t.Errorf("bare NetworkConfig read as %+v, backend %v", f, cfg.Backend)
	}
	got := errorStrings(f.InFile(ValidateConfig(cfg, []string{"IPv4"})))
	want := []string{`ipv4.mode: Unsupported value: "Sometimes": supported values: "Always", "Never", "CrossSubnet", "Off"`}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("validation of a bare NetworkConfig (-want +got):\n%s", d)
	}
	got = errorStrings(f.InFile(field.ErrorList{
		field.Forbidden(field.NewPath("cluster", "kubeProxy", "enabled"), "set networkConfig.ebpfDataplane.enabled: true or enable kube-proxy"),
	}))
	want = []string{"cluster.kubeProxy.enabled: Forbidden: set ebpfDataplane.enabled: true or enable kube-proxy (the file is a bare NetworkConfig, which states no facts: " +
		"to state cluster.kubeProxy.enabled, write a Cluster file with the NetworkConfig under networkConfig, docs/standalone.md)"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("a fact's error for a bare NetworkConfig (-want +got):\n%s", d)
	}
	if _, _, errs := ReadFile("nc.yaml", []byte(nc+"backendd: bird\n")); len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), `backendd: Forbidden: unknown field "backendd"`) {
		t.Errorf("misspelt field of a bare NetworkConfig: %q", errorStrings(errs))
	}
}

func errorStrings(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// TestReadFileTakesTheObject: the Cluster object (today's file with metadata.name default and
// components) is a cluster file too.
func TestReadFileTakesTheObject(t *testing.T) {
	f, cfg, errs := ReadFile("cluster.yaml", []byte(`apiVersion: standalone.calico-pilot.dev/v1alpha1
kind: Cluster
metadata:
  name: default
  annotations:
    calico-pilot.dev/allow-disruption: "true"
components:
  goldmane: {enabled: true}
  whisker: {enabled: true}
cluster:
  podCIDR: 10.244.0.0/16
networkConfig:
  apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
  kind: NetworkConfig
  backend: vxlan
`))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if f.Name != "default" || f.Facts.PodCIDR != "10.244.0.0/16" || !ptr.Deref(f.Components.Whisker.Enabled, false) || cfg.Backend == nil || string(*cfg.Backend) != "vxlan" {
		t.Errorf("read %+v, backend %v", f.Cluster, cfg.Backend)
	}
}
