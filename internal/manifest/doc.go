// Package manifest serializes rendered objects deterministically: sorted by kind, namespace and
// name, duplicates rejected. Compact JSON documents separated by newlines are what is stored for
// the cluster (a stream every resource manager version decodes); YAML is produced only for people.
// Static objects (CRDs) are encoded once with NewStatic and reused for every render.
package manifest
