// Package render turns resolved values.Options into every object Calico needs in a shoot (and the
// seed-side monitoring objects), as typed Kubernetes objects. It is pure: no client, no context, no
// clock, no environment, no serialization; the same Options always give the same objects in the
// same order.
//
// One file per component; each builder returns complete objects with TypeMeta set, so the
// serializer and the API server see exactly what is built here. Shoot returns every shoot object;
// ShootParts returns the same objects split into those that depend on the options and the
// ConstantGroups the options select (objects that are the same for every shoot), so that a caller
// serializing many shoots can encode each group once (internal/pipeline's Encoder does).
package render
