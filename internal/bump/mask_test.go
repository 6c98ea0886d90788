package bump

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v3"
)

func TestMask(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want string // masked form
	}{
		{
			name: "renderer line and statement lines become comments",
			in:   "#!jinja | metalk8s_kubernetes\n\n{%- from \"x.sls\" import y with context %}\nkey: v\n",
			want: "#CPMASK_c0_\n\n#CPMASK_c1_\nkey: v\n",
		},
		{
			name: "unquoted expression becomes a plain scalar",
			in:   "image: {{ build_image_name('calico-cni') }}\n",
			want: "image: CPMASK_0_\n",
		},
		{
			name: "quoted expression and expression inside text",
			in:   "veth_mtu: \"{{ mtu - 20 }}\"\nvalue: cidr={{ cidrs | join(',') }}\n",
			want: "veth_mtu: \"CPMASK_0_\"\nvalue: cidr=CPMASK_1_\n",
		},
		{
			name: "salt slot to end of line, quoted slot to its quote",
			in:   "a: __slot__:salt:f(kind=\"x\",\n  b=\"y\")\nc: \"__slot__:salt:g()\"\n",
			want: "a: CPMASK_0_\n  b=\"y\")\nc: \"CPMASK_1_\"\n",
		},
		{
			name: "expression spanning lines keeps the line count",
			in:   "a: {{ x |\n  y }}\n",
			want: "a: CPMASK_0_\nCPMASK_1_\n",
		},
		{
			name: "prefix already in the input is avoided",
			in:   "a: CPMASK {{ x }}\n",
			want: "a: CPMASK CPMASK1_0_\n",
		},
		{
			name: "unterminated expression is left alone",
			in:   "a: {{ x\n",
			want: "a: {{ x\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMasker([]byte(tc.in))
			got := m.Mask(tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Mask mismatch (-want +got):\n%s", diff)
			}
			if back := m.Unmask(got); back != tc.in {
				t.Errorf("Unmask(Mask(x)) = %q, want %q", back, tc.in)
			}
		})
	}
}

// TestMaskedTemplatesParse: the MetalK8s constructs that break a YAML parser parse once masked.
func TestMaskedTemplatesParse(t *testing.T) {
	in := "#!jinja | metalk8s_kubernetes\n{%- from \"m.sls\" import build_image_name with context %}\n---\n" +
		"spec:\n  image: {{ build_image_name('calico-cni') }}\n  mtu: {{ mtu }}\n" +
		"  annotations:\n    checksum/config: __slot__:salt:f(kind=\"ConfigMap\",\n      path=\"data\")\n"
	var raw yaml.Node
	if err := yaml.Unmarshal([]byte(in), &raw); err == nil {
		t.Fatalf("test input parses without masking; it must exercise the masking")
	}
	m := NewMasker([]byte(in))
	var masked yaml.Node
	if err := yaml.Unmarshal([]byte(m.Mask(in)), &masked); err != nil {
		t.Fatalf("masked input does not parse: %v", err)
	}
}

func FuzzMaskRoundTrip(f *testing.F) {
	for _, s := range []string{
		"",
		"#!jinja\n{%- from 'a' import b %}\nk: {{ v }}\n",
		"a: {{ x |\n y }}\n{# c #}\n{% if x %}\n  b: 1\n{% endif %}",
		"c: \"__slot__:salt:g()\"\nd: __slot__:x(\n",
		"CPMASK_0_ {{ CPMASK_1_ }} #CPMASK_c2_",
		"{{{{}}}}{%%}{##}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		m := NewMasker([]byte(in))
		masked := m.Mask(in)
		if got := m.Unmask(masked); got != in {
			t.Fatalf("round trip changed the input:\n in: %q\nout: %q", in, got)
		}
		if strings.Count(masked, "\n") != strings.Count(in, "\n") {
			t.Fatalf("masking changed the number of lines: %q -> %q", in, masked)
		}
	})
}

func TestInputErrors(t *testing.T) {
	good := Input{Name: "up.yaml", Data: []byte("---\nkind: ConfigMap\nmetadata:\n  name: a\n")}
	cases := []struct {
		name string
		down Input
		want InputError
	}{
		{
			name: "bad indentation in the second document",
			down: Input{Name: "down.sls", Data: []byte("---\nkind: ConfigMap\n---\nkind: X\nmetadata:\n  name: a\n   bad: 1\n")},
			want: InputError{File: "down.sls", Line: 7, Reason: "not valid YAML (after masking templates): mapping values are not allowed in this context"},
		},
		{
			name: "unterminated template expression",
			down: Input{Name: "down.sls", Data: []byte("---\nkind: ConfigMap\nmetadata:\n  name: {{ a\n  x: [\n")},
			want: InputError{File: "down.sls", Line: 4, Reason: "not valid YAML (after masking templates): did not find expected ',' or '}'"},
		},
		{
			name: "wrong indentation of a key",
			down: Input{Name: "down.sls", Data: []byte("---\nkind: ConfigMap\nmetadata:\n  name: a\n namespace: b\n")},
			want: InputError{File: "down.sls", Line: 5, Reason: "not valid YAML (after masking templates): did not find expected key"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Merge(context.Background(), good, tc.down, good, Options{})
			var got *InputError
			if !errors.As(err, &got) {
				t.Fatalf("Merge error = %v, want an *InputError", err)
			}
			if diff := cmp.Diff(tc.want, *got); diff != "" {
				t.Errorf("InputError mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestVersions(t *testing.T) {
	up := func(tag string) Input {
		return Input{Name: "up.yaml", Data: []byte("---\nkind: DaemonSet\nmetadata:\n  name: n\nspec:\n  containers:\n" +
			"    - name: a\n      image: docker.io/calico/node:" + tag + "\n    - name: b\n      image: quay.io/calico/cni:" + tag + "\n")}
	}
	down := Input{Name: "down.yaml", Data: []byte("# based on v3.1.0, see https://github.com/projectcalico/calico/blob/v3.0.9/manifests/calico.yaml\n# not v3.1.01 nor xv3.1.0\n" + string(up("v3.1.0").Data))}
	cases := []struct {
		name       string
		opts       Options
		wantFrom   string
		wantTo     string
		wantSource string
		wantHeader string
	}{
		{
			name: "inferred from image tags", wantFrom: "v3.1.0", wantTo: "v3.2.0", wantSource: "upstream image tags",
			wantHeader: "# based on v3.2.0, see https://github.com/projectcalico/calico/blob/v3.2.0/manifests/calico.yaml\n# not v3.1.01 nor xv3.1.0\n",
		},
		{
			name: "flags win", opts: Options{FromVersion: "v3.1.0", ToVersion: "v9.9.9"}, wantFrom: "v3.1.0", wantTo: "v9.9.9", wantSource: "flags",
			wantHeader: "# based on v9.9.9, see https://github.com/projectcalico/calico/blob/v9.9.9/manifests/calico.yaml\n# not v3.1.01 nor xv3.1.0\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Merge(context.Background(), up("v3.1.0"), down, up("v3.2.0"), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			r := res.Report
			if diff := cmp.Diff([]string{tc.wantFrom, tc.wantTo, tc.wantSource}, []string{r.FromVersion, r.ToVersion, r.VersionSource}); diff != "" {
				t.Errorf("versions mismatch (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(string(res.Output), tc.wantHeader) {
				t.Errorf("output starts with %q, want header %q", strings.SplitN(string(res.Output), "---", 2)[0], tc.wantHeader)
			}
		})
	}
}
