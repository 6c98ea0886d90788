package ssa

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// schemaConverter turns objects of the built-in kinds into typed values with the schema the API
// server uses for them: the OpenAPI models embedded in client-go's apply configurations for
// Kubernetes' own kinds, and in apiextensions-apiserver's for CustomResourceDefinitions.
type schemaConverter struct {
	builtin, apiextensions managedfields.TypeConverter
}

var _ managedfields.TypeConverter = schemaConverter{}

func (c schemaConverter) of(gvk schema.GroupVersionKind) managedfields.TypeConverter {
	if gvk.Group == apiextensionsv1.GroupName {
		return c.apiextensions
	}
	return c.builtin
}

func (c schemaConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	return c.of(obj.GetObjectKind().GroupVersionKind()).ObjectToTyped(obj, opts...)
}

func (c schemaConverter) TypedToObject(value *typed.TypedValue) (runtime.Object, error) {
	m, ok := value.AsValue().Unstructured().(map[string]any)
	if !ok {
		return nil, fmt.Errorf("typed value is a %T, not an object", value.AsValue().Unstructured())
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// sameVersion is the object conversion of a field manager that works in one version: the rendered
// object, the live one and calico-pilot's managedFields entry share the rendered apiVersion. A
// conversion to another version (a manager that wrote another version of the kind) is an error,
// which Unchanged answers with "changed".
type sameVersion struct{}

var _ runtime.ObjectConvertor = sameVersion{}

func (sameVersion) Convert(in, out, _ any) error {
	return fmt.Errorf("converting %T to %T is not supported", in, out)
}

func (sameVersion) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	have := in.GetObjectKind().GroupVersionKind()
	if want, ok := gv.KindForGroupVersionKinds([]schema.GroupVersionKind{have}); ok && want == have {
		return in, nil
	}
	return nil, fmt.Errorf("converting %s to %v is not supported (another version's managed fields)", have, gv)
}

func (sameVersion) ConvertFieldLabel(gvk schema.GroupVersionKind, label, _ string) (string, string, error) {
	return "", "", fmt.Errorf("field label %s of %s is not supported", label, gvk)
}

// unstructuredCreater makes the empty objects the field manager starts from (an object without
// managedFields gets a "before-first-apply" entry first, as on the API server).
type unstructuredCreater struct{}

func (unstructuredCreater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// noDefaults leaves the merged object as it is. The API server defaults the merged object only when
// the merge changed it, and then the manager's timestamp changes anyway: a write either way.
type noDefaults struct{}

func (noDefaults) Default(runtime.Object) {}
