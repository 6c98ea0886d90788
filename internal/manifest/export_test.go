package manifest

import (
	"bytes"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Encode encodes one object as the store does (for the external tests); its TypeMeta must be set (render sets it on every object).
func Encode(obj client.Object) (Doc, error) {
	d, err := header(obj)
	if err != nil {
		return Doc{}, err
	}
	var buf bytes.Buffer
	if err := encodeInto(&buf, newEncoder(&buf), obj, &d); err != nil {
		return Doc{}, err
	}
	return d, nil
}
