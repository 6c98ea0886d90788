package overlayswitch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/mrdata"
)

// calicoNodeDaemonSet is the name of the DaemonSet whose env tells whether the overlay is on.
const calicoNodeDaemonSet = calicoversion.NodeDaemonSet

// OverlayFromManifests finds out whether a deployed manifest has the overlay on, by reading the
// calico-node DaemonSet's env: FELIX_IPINIPENABLED or FELIX_VXLANENABLED set to "true" (what the
// reference checks), or a default pool env (CALICO_IPV4POOL_IPIP, CALICO_IPV4POOL_VXLAN,
// CALICO_IPV6POOL_VXLAN) that encapsulates (Always or CrossSubnet). The pool env is what makes it
// agree with values.Options.OverlayEnabled on IPv6-only shoots, whose VXLAN pool encapsulates while
// Felix's IPv4 switches are off. It exists
// for Networks last reconciled by the reference extension, which records nothing in its provider
// status; our own Networks carry the answer in status.providerStatus. data is the content of the
// ManagedResource secrets (key -> YAML-or-JSON stream). It returns nil when no calico-node DaemonSet
// is found, which the caller treats as "nothing deployed".
func OverlayFromManifests(data map[string][]byte) (*bool, error) {
	data, err := mrdata.Plain(data)
	if err != nil {
		return nil, fmt.Errorf("reading deployed manifest: %w", err)
	}
	for _, key := range slices.Sorted(maps.Keys(data)) {
		ds, err := findCalicoNode(data[key])
		if err != nil {
			return nil, fmt.Errorf("reading deployed manifest key %q: %w", key, err)
		}
		if ds == nil {
			continue
		}
		on := false
		for _, c := range ds.Spec.Template.Spec.Containers {
			for _, env := range c.Env {
				if overlayEnv(env.Name, env.Value) {
					on = true
				}
			}
		}
		return &on, nil
	}
	return nil, nil
}

// overlayEnv is true for a calico-node env var that turns encapsulation on.
func overlayEnv(name, value string) bool {
	switch name {
	case "FELIX_IPINIPENABLED", "FELIX_VXLANENABLED":
		return value == "true"
	case "CALICO_IPV4POOL_IPIP", "CALICO_IPV4POOL_VXLAN", "CALICO_IPV6POOL_VXLAN":
		return calicov1alpha1.PoolMode(value).Encapsulates()
	}
	return false
}

// findCalicoNode decodes a YAML-or-JSON stream and returns the apps/v1 DaemonSet calico-node, if any.
func findCalicoNode(stream []byte) (*appsv1.DaemonSet, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(stream), 4096)
	for {
		var u unstructured.Unstructured
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, nil
			}
			return nil, fmt.Errorf("decoding document: %w", err)
		}
		if u.Object == nil || u.GetAPIVersion() != "apps/v1" || u.GetKind() != "DaemonSet" || u.GetName() != calicoNodeDaemonSet {
			continue
		}
		var ds appsv1.DaemonSet
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &ds); err != nil {
			return nil, fmt.Errorf("decoding DaemonSet %s: %w", calicoNodeDaemonSet, err)
		}
		return &ds, nil
	}
}
