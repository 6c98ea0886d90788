package managedresource

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"

	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
)

// Well-known keys of the ManagedResource contract (docs/gardener-api-types.md §3.6).
const (
	// secretPrefix starts the name of every ManagedResource secret.
	secretPrefix = "managedresource-"
	// LabelManagedResource names the ManagedResource a secret was written for, so that secrets left
	// behind by an interrupted write are found and deleted.
	LabelManagedResource = "calico-pilot.gardener.cloud/managed-resource"
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
	return resourcesv1alpha1.AnnotationReferenceSecretPrefix + hex.EncodeToString(sum[:])[:8]
}
