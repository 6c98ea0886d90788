package ssa

import (
	"encoding/json"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	generatedopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// customKind is what the Comparer knows of a custom resource's kind: its schema as the API server
// builds it from the CRD, and whether status is a subresource (then the server resets it on the main
// resource, and an apply does not own it).
type customKind struct {
	conv         managedfields.TypeConverter
	statusReset  bool
	preserveRest bool
}

// customKinds reads the served versions of crds: the API server's models of a custom resource are
// its CRD's structural schema with the metadata of Kubernetes' ObjectMeta, indexed by the
// group-version-kind extension, as the server builds them for server-side apply.
func customKinds(crds []*apiextensionsv1.CustomResourceDefinition) (map[schema.GroupVersionKind]customKind, error) {
	out := map[schema.GroupVersionKind]customKind{}
	if len(crds) == 0 {
		return out, nil
	}
	models := map[string]*spec.Schema{}
	// The definitions are named as the API server's models are (io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta).
	ref := func(name string) spec.Ref { return spec.MustCreateRef("#/components/schemas/" + name) }
	for name, def := range generatedopenapi.GetOpenAPIDefinitions(common.ReferenceCallback(ref)) {
		s := def.Schema
		models[name] = &s
	}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
			root := &spec.Schema{}
			if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
				raw, err := json.Marshal(v.Schema.OpenAPIV3Schema)
				if err != nil {
					return nil, fmt.Errorf("schema of %s: %w", gvk, err)
				}
				if err := json.Unmarshal(raw, root); err != nil {
					return nil, fmt.Errorf("schema of %s: %w", gvk, err)
				}
			}
			if root.Properties == nil {
				root.Properties = map[string]spec.Schema{}
			}
			root.Properties["apiVersion"] = *spec.StringProperty()
			root.Properties["kind"] = *spec.StringProperty()
			root.Properties["metadata"] = *spec.RefSchema("#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
			root.AddExtension("x-kubernetes-group-version-kind", []any{map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind}})
			models[gvk.Group+"."+gvk.Version+"."+gvk.Kind] = root
			out[gvk] = customKind{
				statusReset:  v.Subresources != nil && v.Subresources.Status != nil,
				preserveRest: crd.Spec.PreserveUnknownFields,
			}
		}
	}
	// One converter over every model: each kind is found by its group-version-kind extension.
	conv, err := managedfields.NewTypeConverter(models, false)
	if err != nil {
		return nil, fmt.Errorf("building the schemas of the custom resources: %w", err)
	}
	for gvk, k := range out {
		if k.preserveRest {
			// A CRD that keeps unknown fields merges them as the server does only with its own
			// converter.
			if k.conv, err = managedfields.NewTypeConverter(models, true); err != nil {
				return nil, fmt.Errorf("building the schema of %s: %w", gvk, err)
			}
		} else {
			k.conv = conv
		}
		out[gvk] = k
	}
	return out, nil
}
