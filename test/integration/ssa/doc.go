// Package ssa proves internal/ssa's Comparer.Unchanged against a real API server: every object
// calico-pilot renders for a plain cluster, in both layouts, with Typha on and off, on every Calico
// line, is applied, read back and judged; each judgement is checked by applying again and watching
// the resourceVersion, unchanged and after edits of the render and of the live object.
package ssa
