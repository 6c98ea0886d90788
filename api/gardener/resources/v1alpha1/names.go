package v1alpha1

import (
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
)

// Condition types of a ManagedResource and the reasons this project reads
// (docs/gardener-api-types.md section 1.4).
const (
	// ResourcesApplied is True once every object was applied.
	ResourcesApplied gardencorev1beta1.ConditionType = "ResourcesApplied"
	// ResourcesHealthy is True while every applied object is healthy.
	ResourcesHealthy gardencorev1beta1.ConditionType = "ResourcesHealthy"
	// ResourcesProgressing is False once every applied object is rolled out.
	ResourcesProgressing gardencorev1beta1.ConditionType = "ResourcesProgressing"

	// ReasonDeletionFailed means deleting the applied objects failed.
	ReasonDeletionFailed = "DeletionFailed"
	// ReasonDeletionPending means deleting the applied objects is in progress.
	ReasonDeletionPending = "DeletionPending"
	// ReasonManagedResourceIgnored means the ManagedResource carries the ignore annotation.
	ReasonManagedResourceIgnored = "ManagedResourceIgnored"
)

// ClassSeed is the class of ManagedResources applied to the seed by the seed's resource manager.
const ClassSeed = "seed"

// FinalizerResourceManager is the finalizer the default-class resource manager puts on a
// ManagedResource; other classes use this name with "-<class>" appended.
const FinalizerResourceManager = "resources.gardener.cloud/gardener-resource-manager"

// Keys on a ManagedResource and its Secrets (sections 3.5 and 3.6).
const (
	// LabelOrigin on a ManagedResource names who created it (the plain key "origin").
	LabelOrigin = "origin"
	// LabelGarbageCollectableReference marks a Secret the resource manager may delete once nothing
	// references it.
	LabelGarbageCollectableReference = "resources.gardener.cloud/garbage-collectable-reference"
	// AnnotationReferenceSecretPrefix, followed by the first 8 hex characters of sha256(secret
	// name), is the key of the annotation that keeps a referenced Secret from being collected.
	AnnotationReferenceSecretPrefix = "reference.resources.gardener.cloud/secret-"
	// LabelShootNoCleanup, injected into shoot objects, leaves them to the resource manager when the
	// shoot is deleted.
	LabelShootNoCleanup = "shoot.gardener.cloud/no-cleanup"
	// LabelManagedBy is written by the resource manager on every object it manages.
	LabelManagedBy = "resources.gardener.cloud/managed-by"
)

// Keys on the objects inside a ManagedResource's Secrets (section 3.5).
const (
	// AnnotationIgnore: created if missing, never updated again (on the ManagedResource itself: the
	// whole resource is skipped).
	AnnotationIgnore = "resources.gardener.cloud/ignore"
	// AnnotationMode with value ModeIgnore drops the object from management.
	AnnotationMode = "resources.gardener.cloud/mode"
	// ModeIgnore is the value of AnnotationMode that releases an object.
	ModeIgnore = "Ignore"
	// AnnotationDeleteOnInvalidUpdate recreates the object when an update is refused as Invalid.
	AnnotationDeleteOnInvalidUpdate = "resources.gardener.cloud/delete-on-invalid-update"
	// AnnotationKeepObject keeps the object when it leaves the ManagedResource.
	AnnotationKeepObject = "resources.gardener.cloud/keep-object"
	// AnnotationPreserveReplicas keeps the live spec.replicas on update.
	AnnotationPreserveReplicas = "resources.gardener.cloud/preserve-replicas"
	// AnnotationPreserveResources keeps the live container resources on update.
	AnnotationPreserveResources = "resources.gardener.cloud/preserve-resources"
	// AnnotationSkipHealthCheck leaves the object out of the health conditions.
	AnnotationSkipHealthCheck = "resources.gardener.cloud/skip-health-check"
	// AnnotationOrigin is written by the resource manager: <namespace>/<name> of the ManagedResource.
	AnnotationOrigin = "resources.gardener.cloud/origin"
)
