package install

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/api/projectcalico/crds"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

func TestParseIPAM(t *testing.T) {
	for name, tc := range map[string]struct {
		template string
		want     IPAM
		err      string
	}{
		"calico-ipam with bare placeholders": {
			template: `{"name": "k8s-pod-network", "plugins": [{"type": "calico", "mtu": __CNI_MTU__, "nodename": "__KUBERNETES_NODE_NAME__", "ipam": {"type": "calico-ipam"}}, {"type": "portmap"}]}`,
			want:     IPAM{Type: "calico-ipam"},
		},
		"host-local on the node's pod CIDR": {
			template: `{"plugins": [{"type": "calico", "ipam": {"type": "host-local", "subnet": "usePodCidr"}}]}`,
			want:     IPAM{Type: "host-local", Subnet: "usePodCidr"},
		},
		"not JSON":           {template: `{"plugins": [`, err: "the CNI conflist template is not JSON: unexpected end of JSON input"},
		"no calico plugin":   {template: `{"plugins": [{"type": "portmap"}]}`, err: "the CNI conflist template has no calico plugin"},
		"a quoted 0 is kept": {template: `{"plugins": [{"type": "calico", "ipam": {"type": "host-local", "subnet": "0"}}]}`, want: IPAM{Type: "host-local", Subnet: "0"}},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := parseIPAM(tc.template)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func running(images ...string) *Install {
	in := &Install{}
	comps := calicoversion.Components()
	for i, img := range images {
		w := comps[i].Workload()
		in.Workloads = append(in.Workloads, Workload{Component: comps[i], Kind: w.Kind, Namespace: w.Namespace, Name: w.Name, Image: img})
	}
	return in
}

func TestReleaseOf(t *testing.T) {
	cat := calicoversion.Default()
	pin, _ := cat.Resolve("v3.31.7")
	other, _ := cat.Resolve("v3.32.1")
	for name, tc := range map[string]struct {
		in   *Install
		pin  *calicoversion.Release
		want string
		err  string
	}{
		"nothing runs":      {in: &Install{}},
		"a carried release": {in: running("quay.io/calico/node:v3.31.6", "quay.io/calico/typha:v3.31.6"), want: "v3.31.6"},
		"digest-pinned":     {in: running("registry.local:5000/calico/node:v3.31.7@sha256:0123"), want: "v3.31.7"},
		"an uncarried patch release": {in: running("docker.io/calico/node:v3.31.5"),
			err: "Calico v3.31.5 runs (calico-node docker.io/calico/node:v3.31.5), a release calico-pilot does not carry (it carries v3.31 (v3.31.6, v3.31.7) and v3.32 (v3.32.1)). " +
				"Its line v3.31 is carried: take it over as a carried release of that line with --calico-version v3.31.7 (a patch move, every component in one step), or move it first with the tooling that installed it; nothing was changed"},
		"an uncarried patch release, pinned in its line": {in: running("docker.io/calico/node:v3.31.5"), pin: &pin, want: "v3.31.7"},
		"an uncarried patch release, pinned elsewhere":   {in: running("docker.io/calico/node:v3.31.5"), pin: &other, err: "Its line v3.31 is carried"},
		"a newer line": {in: running("docker.io/calico/node:v3.33.0"),
			err: "Calico v3.33.0 runs (calico-node docker.io/calico/node:v3.33.0), a release calico-pilot does not carry (it carries v3.31 (v3.31.6, v3.31.7) and v3.32 (v3.32.1)). " +
				"It is newer than every line calico-pilot carries: taking it over would move it down to v3.32; use a calico-pilot that carries v3.33; nothing was changed"},
		"an older line, one line off": {in: running("docker.io/calico/node:v3.30.4"), err: "Taking it over would move every component from v3.30 to v3.31 in one step. Move it one line"},
		"mixed": {in: running("quay.io/calico/node:v3.32.1", "quay.io/calico/typha:v3.31.7"),
			err: "the components run different Calico releases (calico-node v3.32.1, calico-typha-deploy v3.31.7): a move is half done; finish it with the tooling that started it, so that every component runs one release, then adopt; nothing was changed"},
		"no release in the tag": {in: running("quay.io/calico/node:latest"),
			err: "DaemonSet kube-system/calico-node runs quay.io/calico/node:latest, whose tag names no Calico release: calico-pilot cannot tell which release runs; tag the image with its release (vX.Y.Z), then adopt; nothing was changed"},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := tc.in.ReleaseOf(cat, tc.pin)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want it to contain %q", err, tc.err)
				}
				return
			}
			if err != nil || got.Release.Name() != tc.want && !(tc.want == "" && got.Release.IsZero()) {
				t.Fatalf("got %v, %v; want %q", got.Release, err, tc.want)
			}
		})
	}
}

func crdMap(t *testing.T, set string, drop ...string) map[string]*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	defs, err := crds.CustomResourceDefinitionsFor(set)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, d := range defs {
		out[d.Name] = d
	}
	for _, name := range drop {
		delete(out, name)
	}
	return out
}

// TestCRDRelease: the CRDs' release is the newest line whose whole set the cluster holds, by name
// and by schema paths.
func TestCRDRelease(t *testing.T) {
	cat := calicoversion.Default()
	lines := cat.Lines()
	older, newer := lines[0], lines[len(lines)-1]
	trimmed := crdMap(t, newer.CRDSet())
	// A v3.32 CRD whose schema lost a field v3.32 added: the cluster holds v3.31's CRDs, not v3.32's.
	felix := trimmed["felixconfigurations.crd.projectcalico.org"]
	oldFelix := crdMap(t, older.CRDSet())["felixconfigurations.crd.projectcalico.org"]
	newPaths := SchemaPaths(felix.Spec.Versions[0].Schema.OpenAPIV3Schema)
	oldPaths := SchemaPaths(oldFelix.Spec.Versions[0].Schema.OpenAPIV3Schema)
	if cmp.Equal(newPaths, oldPaths) {
		t.Skip("the newest line's felixconfigurations schema equals the oldest's")
	}
	trimmed[felix.Name] = oldFelix
	for name, tc := range map[string]struct {
		crds map[string]*apiextensionsv1.CustomResourceDefinition
		want string
	}{
		"none":                             {crds: map[string]*apiextensionsv1.CustomResourceDefinition{}, want: ""},
		"the oldest line's":                {crds: crdMap(t, older.CRDSet()), want: older.Newest().Name()},
		"the newest line's":                {crds: crdMap(t, newer.CRDSet()), want: newer.Newest().Name()},
		"the newest line's but one schema": {crds: trimmed, want: older.Newest().Name()},
		"a CRD missing":                    {crds: crdMap(t, older.CRDSet(), "ippools.crd.projectcalico.org"), want: ""},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := (&Install{CRDs: tc.crds}).CRDRelease(cat)
			if err != nil || got.Name() != tc.want && !(tc.want == "" && got.IsZero()) {
				t.Fatalf("got %v, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func manifestInstall(ipam string, pools ...calicov1.IPPool) *Install {
	in := running("docker.io/calico/node:v3.31.6")
	in.Config = &Config{Namespace: "kube-system", Name: "calico-config", Data: map[string]string{"veth_mtu": "1440"}}
	in.IPAM = IPAM{Type: ipam, Source: "kube-system/calico-config cni_network_config"}
	if ipam == "host-local" {
		in.IPAM.Subnet = "usePodCidr"
	}
	in.Backend, in.BackendSource = "bird", "kube-system/calico-config calico_backend"
	in.VethMTU = "1440"
	in.Typha = Typha{Known: true, Source: "calico-node sets no FELIX_TYPHAK8SSERVICENAME"}
	in.Pools = pools
	return in
}

func pool(name, cidr string, vxlan calicov1.VXLANMode, ipip calicov1.IPIPMode, disabled bool) calicov1.IPPool {
	p := calicov1.IPPool{Spec: calicov1.IPPoolSpec{CIDR: cidr, BlockSize: 26, VXLANMode: vxlan, IPIPMode: ipip, Disabled: disabled}}
	p.Name = name
	return p
}

// TestKeep: what the file leaves out is what runs; what it states otherwise is a contradiction
// naming both, a blocker for the IPAM type when addresses are handed out.
func TestKeep(t *testing.T) {
	path := field.NewPath("networkConfig")
	vxlanPool := pool("default-ipv4-ippool", "10.244.0.0/16", calicov1.VXLANModeAlways, calicov1.IPIPModeNever, false)
	one := 0
	for name, tc := range map[string]struct {
		in             *Install
		cfg            *calicov1alpha1.NetworkConfig
		kept           []string
		contradictions []string
		blocker        bool
	}{
		"a silent file keeps everything": {
			in:  manifestInstall("calico-ipam", vxlanPool),
			cfg: &calicov1alpha1.NetworkConfig{},
			kept: []string{
				"networkConfig.ipam: calico-ipam (kept: kube-system/calico-config cni_network_config)",
				"networkConfig.backend: bird (kept: kube-system/calico-config calico_backend)",
				"networkConfig.ipv4: pool vxlan, mode Always (kept: IP pool default-ipv4-ippool)",
				"networkConfig.vethMTU: 1440 (kept: kube-system/calico-config veth_mtu)",
				"networkConfig.typha.enabled: false (kept: calico-node sets no FELIX_TYPHAK8SSERVICENAME)",
			},
		},
		"host-local on the pod CIDR is kept": {
			in:   manifestInstall("host-local"),
			cfg:  &calicov1alpha1.NetworkConfig{Backend: ptr.To(calicov1alpha1.BackendBird), VethMTU: ptr.To("1440"), Typha: &calicov1alpha1.Typha{}},
			kept: []string{"networkConfig.ipam: host-local with subnet usePodCidr (kept: kube-system/calico-config cni_network_config)"},
		},
		"the file's overlay off against a VXLAN pool": {
			in:   manifestInstall("calico-ipam", vxlanPool),
			cfg:  &calicov1alpha1.NetworkConfig{Overlay: &calicov1alpha1.Overlay{Enabled: false, CreatePodRoutes: ptr.To(true)}, VethMTU: ptr.To("1440"), Typha: &calicov1alpha1.Typha{}},
			kept: []string{"networkConfig.ipam: calico-ipam (kept: kube-system/calico-config cni_network_config)"},
			contradictions: []string{"networkConfig.ipv4: the file says pool ipip, mode Never, the cluster runs pool vxlan, mode Always (IP pool default-ipv4-ippool): " +
				"the encapsulation of pod traffic changes on every node at once"},
		},
		"host-local asked where calico-ipam hands out addresses": {
			in: func() *Install {
				in := manifestInstall("calico-ipam", vxlanPool)
				in.Blocks = []calicov1.IPAMBlock{{Spec: calicov1.IPAMBlockSpec{Allocations: []*int{&one, nil}}}}
				return in
			}(),
			cfg:  &calicov1alpha1.NetworkConfig{IPAM: &calicov1alpha1.IPAM{Type: calicov1alpha1.IPAMHostLocal, CIDR: ptr.To("usePodCidr")}, Backend: ptr.To(calicov1alpha1.BackendBird), VethMTU: ptr.To("1440"), Typha: &calicov1alpha1.Typha{}},
			kept: []string{"networkConfig.ipv4: pool vxlan, mode Always (kept: IP pool default-ipv4-ippool)"},
			contradictions: []string{"networkConfig.ipam.type: the file says host-local, the cluster runs calico-ipam (kube-system/calico-config cni_network_config): " +
				"new pods would get addresses from the other IPAM, which does not know the addresses the running one handed out (duplicate pod IPs); calico-ipam's IPAM blocks hold 1 address(es)"},
			blocker: true,
		},
		"Typha asked where it is off": {
			in:   manifestInstall("calico-ipam", vxlanPool),
			cfg:  &calicov1alpha1.NetworkConfig{Typha: &calicov1alpha1.Typha{Enabled: true}, VethMTU: ptr.To("1440")},
			kept: []string{"networkConfig.ipam: calico-ipam (kept: kube-system/calico-config cni_network_config)", "networkConfig.backend: bird (kept: kube-system/calico-config calico_backend)", "networkConfig.ipv4: pool vxlan, mode Always (kept: IP pool default-ipv4-ippool)"},
			contradictions: []string{"networkConfig.typha.enabled: the file says true, the cluster runs false (calico-node sets no FELIX_TYPHAK8SSERVICENAME): " +
				"calico-node restarts on every node to connect to the datastore another way"},
		},
		"nothing runs": {in: &Install{}, cfg: &calicov1alpha1.NetworkConfig{}},
	} {
		t.Run(name, func(t *testing.T) {
			before := tc.cfg.DeepCopy()
			j := tc.in.Keep(tc.cfg, []string{"IPv4"}, path)
			var kept, contra []string
			blocker := false
			for _, k := range j.Kept {
				kept = append(kept, k.String())
			}
			for _, c := range j.Contradictions {
				contra = append(contra, c.String())
				blocker = blocker || c.Blocker
			}
			if d := cmp.Diff(tc.kept, kept); d != "" {
				t.Errorf("kept (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.contradictions, contra); d != "" {
				t.Errorf("contradictions (-want +got):\n%s", d)
			}
			if blocker != tc.blocker {
				t.Errorf("blocker %v, want %v", blocker, tc.blocker)
			}
			if !cmp.Equal(before, tc.cfg) {
				t.Error("Keep changed its input")
			}
		})
	}
}
