package render

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// configMap builds calico-node's configuration (kube-system/calico-config in the default layout; it
// is part of the node component, whose pods carry its checksum): the backend, the typha service
// name, the veth MTU and, under the layout's key, the CNI conflist template that install-cni fills
// in on every node.
func configMap(o *values.Options) (*corev1.ConfigMap, error) {
	l := layoutOf(o)
	typhaService := "none"
	if o.Typha {
		typhaService = l.TyphaService
	}
	conflist, err := cniConflist(o)
	if err != nil {
		return nil, fmt.Errorf("rendering ConfigMap %s: %w", l.ConfigMap, err)
	}
	return &corev1.ConfigMap{
		TypeMeta:   typeMeta("v1", "ConfigMap"),
		ObjectMeta: meta(l.ConfigMap, l.Namespace, nil),
		Data: map[string]string{
			"typha_service_name": typhaService,
			"calico_backend":     string(o.Backend),
			"veth_mtu":           o.VethMTU,
			l.CNIConfigKey:       conflist,
		},
	}, nil
}

// cniConflist writes the conflist template by hand rather than with encoding/json because
// install-cni substitutes the bare token __CNI_MTU__ (a number after substitution).
func cniConflist(o *values.Options) (string, error) {
	var ipam strings.Builder
	var err error
	// q quotes s as a JSON string; the first error is kept and returned below.
	q := func(s string) string {
		b, e := json.Marshal(s)
		if e != nil && err == nil {
			err = fmt.Errorf("writing the CNI conflist: %w", e)
		}
		return string(b)
	}
	ipam.WriteString(`"type": ` + q(o.IPAM.Type))
	if o.IPAM.RangeIPv4 != "" {
		// IPv6 first, as in the reference, so a move to calico-pilot changes nothing on the nodes.
		ipam.WriteString(`,
          "ranges": [[{"subnet": ` + q(o.IPAM.RangeIPv6) + `}], [{"subnet": ` + q(o.IPAM.RangeIPv4) + `}]]`)
	} else {
		ipam.WriteString(`,
          "subnet": ` + q(o.IPAM.Subnet))
	}
	ipam.WriteString(`,
          "assign_ipv4": ` + q(boolString(o.IPv4)) + `,
          "assign_ipv6": ` + q(boolString(o.IPv6)))
	if err != nil {
		return "", err
	}
	return `{
  "name": "k8s-pod-network",
  "cniVersion": "` + cniVersion(o) + `",
  "plugins": [
    {
      "type": "calico",
      "log_level": "error",
      "log_file_path": "/var/log/calico/cni/cni.log",
      "datastore_type": "kubernetes",
      "nodename": "__KUBERNETES_NODE_NAME__",
      "mtu": __CNI_MTU__,
      "ipam": {
          ` + ipam.String() + `
      },
      "policy": {
          "type": "k8s"
      },
      "kubernetes": {
          "kubeconfig": "__KUBECONFIG_FILEPATH__"
      }
    },
    {
      "type": "portmap",
      "snat": true,
      "capabilities": {"portMappings": true}
    }
  ]
}`, nil
}

// cniVersion is the CNI spec version of the network configuration install-cni writes for calico-node's
// release: 1.0.0 from the releases that have calicoversion.CNIVersion1 (it needs a container runtime
// whose CNI library speaks CNI 1.0), else 0.3.1.
func cniVersion(o *values.Options) string {
	if o.Calico.Node.Has(calicoversion.CNIVersion1) {
		return "1.0.0"
	}
	return "0.3.1"
}
