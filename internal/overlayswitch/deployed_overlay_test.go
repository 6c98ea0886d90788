package overlayswitch

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calico-pilot/calico-pilot/internal/mrdata"
)

const dsIPv6VXLAN = `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"calico-node","namespace":"kube-system"},"spec":{"selector":{},"template":{"spec":{"containers":[{"name":"calico-node","env":[{"name":"CALICO_IPV6POOL_VXLAN","value":"Always"},{"name":"FELIX_IPINIPENABLED","value":"false"}]}]}}}}`

const dsPoolNever = `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"calico-node","namespace":"kube-system"},"spec":{"selector":{},"template":{"spec":{"containers":[{"name":"calico-node","env":[{"name":"CALICO_IPV4POOL_IPIP","value":"Never"},{"name":"CALICO_IPV6POOL_VXLAN","value":"Never"},{"name":"FELIX_IPINIPENABLED","value":"false"}]}]}}}}`

const dsIPIPOn = `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"calico-node","namespace":"kube-system"},"spec":{"selector":{},"template":{"spec":{"containers":[{"name":"calico-node","env":[{"name":"FELIX_IPINIPENABLED","value":"true"}]}]}}}}`

// dsYAML is the calico-node DaemonSet as YAML with the one env variable name=value.
func dsYAML(name, value string) string {
	return `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: calico-node
spec:
  template:
    spec:
      containers:
      - name: calico-node
        env:
        - name: ` + name + `
          value: "` + value + `"
`
}

var (
	dsVXLANOnYAML = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: calico-config\n---\n" + dsYAML("FELIX_VXLANENABLED", "true")
	dsOff         = dsYAML("FELIX_IPINIPENABLED", "false")
)

func compressed(t *testing.T, s string) []byte {
	t.Helper()
	b, err := mrdata.Compress([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestOverlayFromManifests(t *testing.T) {
	on, off := true, false
	tests := []struct {
		name    string
		data    map[string][]byte
		want    *bool
		wantErr bool
	}{
		{name: "json stream, ipip on", data: map[string][]byte{"config.yaml": []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}` + "\n" + dsIPIPOn)}, want: &on},
		{name: "yaml stream, vxlan on", data: map[string][]byte{"config.yaml": []byte(dsVXLANOnYAML)}, want: &on},
		{name: "IPv6-only VXLAN pool encapsulates (Felix IPIP off)", data: map[string][]byte{"config.yaml": []byte(dsIPv6VXLAN)}, want: &on},
		{name: "pool env Never", data: map[string][]byte{"config.yaml": []byte(dsPoolNever)}, want: &off},
		{name: "overlay off", data: map[string][]byte{"config.yaml": []byte(dsOff)}, want: &off},
		{name: "no daemonset", data: map[string][]byte{"config.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: calico-config\n")}, want: nil},
		{name: "empty", data: map[string][]byte{}, want: nil},
		{name: "garbage", data: map[string][]byte{"config.yaml": []byte("{not json")}, wantErr: true},
		// calico-pilot's secret: the plain stream beside the Brotli-compressed CRDs.
		{name: "with a compressed key", data: map[string][]byte{"config.yaml": []byte(dsIPIPOn), mrdata.CRDsKey: compressed(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`)}, want: &on},
		{name: "daemonset in the compressed key", data: map[string][]byte{"data.yaml.br": compressed(t, dsOff)}, want: &off},
		{name: "corrupt compressed key", data: map[string][]byte{"config.yaml": []byte(dsIPIPOn), mrdata.CRDsKey: []byte("not brotli")}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := OverlayFromManifests(tt.data)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
