// Package render turns resolved values.Options into every object Calico needs in a shoot (and the
// seed-side monitoring objects), as typed Kubernetes objects. It is pure: no client, no context, no
// clock, no environment; the same Options always give the same objects in the same order.
//
// One file per component; each builder returns complete objects with TypeMeta set, so the
// serializer and the API server see exactly what is built here.
package render
