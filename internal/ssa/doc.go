// Package ssa answers, from the live object alone (one GET), whether a server-side apply would
// change it: Comparer.Unchanged runs the API server's own field manager
// (k8s.io/apimachinery/pkg/util/managedfields, on the schemas client-go and apiextensions-apiserver
// embed) in memory on the rendered and the live object and compares the result with the live
// object, managedFields included. A reconcile of an unchanged cluster then writes nothing, dry runs
// included; docs/noop-applies.md.
package ssa
