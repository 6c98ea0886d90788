package decode

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Object strictly decodes a document of kind gvk into obj (a pointer to a Go type of that kind),
// with the same rules as NetworkConfig: a wrong apiVersion or kind, an unknown or duplicate field or
// a value of the wrong type is an error with its path below fldPath (nil: the document is the root).
// obj must not be used when there are errors.
func Object(data []byte, fldPath *field.Path, gvk schema.GroupVersionKind, obj any) field.ErrorList {
	return into(data, fldPath, gvk, obj, strictMode)
}

// newFrom decodes data into a new T of kind gvk in mode m; the result is nil whenever there are
// errors, so nothing half-decoded is used.
func newFrom[T any](data []byte, fldPath *field.Path, gvk schema.GroupVersionKind, m mode) (*T, field.ErrorList) {
	obj := new(T)
	if errs := into(data, fldPath, gvk, obj, m); len(errs) > 0 {
		return nil, errs
	}
	return obj, nil
}
