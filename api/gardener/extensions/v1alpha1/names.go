package v1alpha1

import (
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
)

// Well-known annotation keys and values on extension objects (docs/gardener-api-types.md section 3.1).
const (
	// AnnotationOperation asks an extension controller for an operation on the object.
	AnnotationOperation = "gardener.cloud/operation"
	// OperationReconcile asks for a reconcile; the controller removes it when it starts.
	OperationReconcile = "reconcile"
	// OperationRestore asks for a Restore; removed after a successful restore.
	OperationRestore = "restore"
	// OperationMigrate asks for a Migrate; removed after a successful migrate.
	OperationMigrate = "migrate"
	// OperationWaitForState means do nothing until the value changes to restore.
	OperationWaitForState = "wait-for-state"
	// AnnotationTimestamp is set by the gardenlet together with every operation annotation (RFC 3339
	// with nanoseconds, UTC); readiness requires lastOperation.lastUpdateTime not to be earlier.
	AnnotationTimestamp = "gardener.cloud/timestamp"
	// AnnotationConfirmationDeletion must be "true" on an extension object before it is deleted.
	AnnotationConfirmationDeletion = "confirmation.gardener.cloud/deletion"
	// AnnotationConfirmationForceDeletion on a Shoot makes deletion call ForceDelete.
	AnnotationConfirmationForceDeletion = "confirmation.gardener.cloud/force-deletion"
	// AnnotationDNSIPStack on a DNSRecord names the shoot's IP stack: ipv4, ipv6 or dual-stack.
	AnnotationDNSIPStack = "dns.gardener.cloud/ip-stack"
	// AnnotationGenericTokenKubeconfigSecretName on a Cluster names the generic token kubeconfig
	// secret in the control-plane namespace.
	AnnotationGenericTokenKubeconfigSecretName = "generic-token-kubeconfig.secret.gardener.cloud/name"
)

// Finalizers (section 3.2).
const (
	// FinalizerNetwork is the finalizer the Network reconciler puts on a Network.
	FinalizerNetwork = "extensions.gardener.cloud/network"
)

// Labels on seed objects (section 3.3).
const (
	// LabelGardenerRole is Gardener's role label.
	LabelGardenerRole = "gardener.cloud/role"
	// GardenerRoleShoot marks a control-plane namespace.
	GardenerRoleShoot = "shoot"
	// GardenerRoleControlPlane marks the DNSRecords the gardenlet creates for a shoot.
	GardenerRoleControlPlane = "controlplane"
	// GardenerRoleExtension marks an extension's own namespace.
	GardenerRoleExtension = "extension"
	// LabelDNSRecordRole says which record of a shoot a DNSRecord is (the plain key "role").
	LabelDNSRecordRole = "role"
	// DNSRecordRoleExternal is the record of the shoot's external domain (api.<shoot domain>).
	DNSRecordRoleExternal = "external"
	// DNSRecordRoleInternal is the record of the landscape's internal domain.
	DNSRecordRoleInternal = "internal"
	// DNSRecordRoleIngress is the nginx-ingress wildcard record.
	DNSRecordRoleIngress = "ingress"
	// LabelNetworkingProvider on a control-plane namespace holds the networking type.
	LabelNetworkingProvider = "networking.shoot.gardener.cloud/provider"
	// LabelShootProvider on a control-plane namespace holds the infrastructure provider type.
	LabelShootProvider = "shoot.gardener.cloud/provider"
)

// DNSRecord condition types (section 1.3).
const (
	// ConditionTypeCreated is True once the record was created on the provider at least once.
	ConditionTypeCreated gardencorev1beta1.ConditionType = "Created"
)

// DefaultDNSRecordTTL is the TTL in seconds Gardener assumes for a DNSRecord without spec.ttl.
const DefaultDNSRecordTTL int64 = 120
