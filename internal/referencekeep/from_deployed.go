package referencekeep

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/mrdata"
	"github.com/calico-pilot/calico-pilot/internal/render"
)

// FromDeployed returns what Reference mode takes over from a deployed manifest (the data of a
// ManagedResource's secrets: YAML or JSON streams, Brotli-compressed keys allowed): the
// checksum/configmap-calico annotation of the DaemonSet kube-system/calico-node with the fingerprint of
// the ConfigMap kube-system/calico-config it stood for, and the commands of its helper containers. Nil
// when the manifest has no calico-node DaemonSet.
func FromDeployed(data map[string][]byte) (*calicov1alpha1.TakenOverTemplate, error) {
	plain, err := mrdata.Plain(data)
	if err != nil {
		return nil, fmt.Errorf("reading the deployed manifest: %w", err)
	}
	var ds *appsv1.DaemonSet
	var cm *corev1.ConfigMap
	for _, k := range slices.Sorted(maps.Keys(plain)) {
		if err := scan(plain[k], &ds, &cm); err != nil {
			return nil, fmt.Errorf("reading the deployed manifest key %q: %w", k, err)
		}
	}
	if ds == nil {
		return nil, nil
	}
	t := &calicov1alpha1.TakenOverTemplate{}
	if v := ds.Spec.Template.Annotations[render.AnnotationChecksumConfig]; v != "" && cm != nil {
		t.ConfigChecksum, t.ConfigFingerprint = v, render.ConfigFingerprint(cm.Data)
	}
	spec := ds.Spec.Template.Spec
	for _, c := range append(append([]corev1.Container(nil), spec.InitContainers...), spec.Containers...) {
		if !render.TakenOverContainers[c.Name] || len(c.Command) == 0 {
			continue
		}
		if t.Commands == nil {
			t.Commands = map[string][]string{}
		}
		t.Commands[c.Name] = append([]string(nil), c.Command...)
	}
	if t.ConfigChecksum == "" && t.Commands == nil {
		return nil, nil
	}
	return t, nil
}

// scan decodes a YAML-or-JSON stream and keeps the calico-node DaemonSet and the calico-config
// ConfigMap of kube-system.
func scan(stream []byte, ds **appsv1.DaemonSet, cm **corev1.ConfigMap) error {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(stream), 4096)
	for {
		var u unstructured.Unstructured
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("decoding document: %w", err)
		}
		if u.Object == nil || (u.GetNamespace() != render.Namespace && u.GetNamespace() != "") {
			continue
		}
		switch {
		case u.GetAPIVersion() == "apps/v1" && u.GetKind() == "DaemonSet" && u.GetName() == render.NameCalicoNode:
			*ds = &appsv1.DaemonSet{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, *ds); err != nil {
				return fmt.Errorf("decoding DaemonSet %s: %w", render.NameCalicoNode, err)
			}
		case u.GetAPIVersion() == "v1" && u.GetKind() == "ConfigMap" && u.GetName() == render.NameCalicoConfig:
			*cm = &corev1.ConfigMap{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, *cm); err != nil {
				return fmt.Errorf("decoding ConfigMap %s: %w", render.NameCalicoConfig, err)
			}
		}
	}
}
