package managedresource

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// Well-known keys of the ManagedResource contract (reference/gardener-wire-types.md §3.6).
const (
	// secretPrefix starts the name of every ManagedResource secret.
	secretPrefix = "managedresource-"
	// LabelGarbageCollectable marks secrets the resource manager may collect once nothing references them.
	LabelGarbageCollectable = "resources.gardener.cloud/garbage-collectable-reference"
	// LabelOrigin names who created the ManagedResource.
	LabelOrigin = "origin"
	// LabelManagedResource names the ManagedResource a secret was written for, so that secrets left
	// behind by an interrupted write are found and deleted.
	LabelManagedResource = "calico-pilot.gardener.cloud/managed-resource"
	// annotationReferencePrefix starts the annotation that keeps a referenced secret from being
	// garbage-collected.
	annotationReferencePrefix = "reference.resources.gardener.cloud/secret-"
	// LabelNoCleanup is injected into every shoot object, so the shoot deletion cleaner leaves them to
	// the resource manager.
	LabelNoCleanup = "shoot.gardener.cloud/no-cleanup"
)

// ContentHash returns the checksum Gardener's CreateForShoot names secrets after: the hex sha256 of the
// concatenated hex sha256 digests of the values, in sorted key order (keys themselves are not hashed).
func ContentHash(data map[string][]byte) string {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		sum := sha256.Sum256(data[k])
		b.WriteString(hex.EncodeToString(sum[:]))
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

// SecretName returns the name of the immutable secret that holds data for ManagedResource name:
// managedresource-<name>-<first 8 hex of ContentHash>.
func SecretName(name string, data map[string][]byte) string {
	base := secretPrefix + name
	if !strings.HasSuffix(base, "-") {
		base += "-"
	}
	return base + ContentHash(data)[:8]
}

// referenceAnnotation returns the ManagedResource annotation key that references secretName.
func referenceAnnotation(secretName string) string {
	sum := sha256.Sum256([]byte(secretName))
	return annotationReferencePrefix + hex.EncodeToString(sum[:])[:8]
}
