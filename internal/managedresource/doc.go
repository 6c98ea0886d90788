// Package managedresource stores rendered shoot manifests the way Gardener's resource manager reads
// them: one ManagedResource per name whose single secretRef points at an immutable Secret named after
// a hash of its content (so an unchanged manifest is never written again; docs/controller.md).
//
// Because the Secret name carries the content hash, "is the stored content up to date?" is answered by
// comparing names: storing unchanged content costs two reads and no write. A changed content creates a
// new Secret, repoints the ManagedResource, then deletes the Secrets it no longer references.
package managedresource
