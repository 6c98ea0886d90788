package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// IPFamily is an IP family.
// +kubebuilder:validation:Enum=IPv4;IPv6
type IPFamily string

const (
	// IPFamilyIPv4 is IPv4.
	IPFamilyIPv4 IPFamily = "IPv4"
	// IPFamilyIPv6 is IPv6.
	IPFamilyIPv6 IPFamily = "IPv6"
)

// ConditionType is the type of a condition.
type ConditionType string

// ConditionStatus is the status of a condition.
// +kubebuilder:validation:Enum=True;False;Unknown;Progressing
type ConditionStatus string

const (
	// ConditionTrue means the condition holds.
	ConditionTrue ConditionStatus = "True"
	// ConditionFalse means the condition does not hold.
	ConditionFalse ConditionStatus = "False"
	// ConditionUnknown means it is not known whether the condition holds.
	ConditionUnknown ConditionStatus = "Unknown"
	// ConditionProgressing means the condition is changing.
	ConditionProgressing ConditionStatus = "Progressing"
)

// Condition is an observation about an object, as Gardener writes it (core.gardener.cloud/v1beta1
// Condition). All keys but codes are always written; an empty string is a valid reason or message.
type Condition struct {
	// Type is the condition type.
	Type ConditionType `json:"type"`
	// Status is True, False, Unknown or Progressing.
	Status ConditionStatus `json:"status"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime"`
	// LastUpdateTime is when anything in the condition last changed.
	LastUpdateTime metav1.Time `json:"lastUpdateTime"`
	// Reason is a machine-readable CamelCase reason.
	Reason string `json:"reason"`
	// Message is a human-readable text.
	Message string `json:"message"`
	// Codes are error codes when the condition reports a problem.
	// +optional
	Codes []ErrorCode `json:"codes,omitempty"`
}

// LastOperationType is the type of an operation.
// +kubebuilder:validation:Enum=Create;Reconcile;Delete;Migrate;Restore;LiveMigrate
type LastOperationType string

const (
	// LastOperationTypeCreate is the first reconcile of an object.
	LastOperationTypeCreate LastOperationType = "Create"
	// LastOperationTypeReconcile is a reconcile of an existing object.
	LastOperationTypeReconcile LastOperationType = "Reconcile"
	// LastOperationTypeDelete is a deletion.
	LastOperationTypeDelete LastOperationType = "Delete"
	// LastOperationTypeMigrate is the source-seed half of a control-plane migration.
	LastOperationTypeMigrate LastOperationType = "Migrate"
	// LastOperationTypeRestore is the destination-seed half of a control-plane migration.
	LastOperationTypeRestore LastOperationType = "Restore"
	// LastOperationTypeLiveMigrate is only used on Shoots.
	LastOperationTypeLiveMigrate LastOperationType = "LiveMigrate"
)

// LastOperationState is the state of an operation.
// +kubebuilder:validation:Enum=Processing;Succeeded;Error;Failed;Pending;Aborted
type LastOperationState string

const (
	// LastOperationStateProcessing means the operation is running.
	LastOperationStateProcessing LastOperationState = "Processing"
	// LastOperationStateSucceeded means the operation is done.
	LastOperationStateSucceeded LastOperationState = "Succeeded"
	// LastOperationStateError means the operation failed and will be retried.
	LastOperationStateError LastOperationState = "Error"
	// LastOperationStateFailed means the operation failed and will not be retried automatically.
	LastOperationStateFailed LastOperationState = "Failed"
	// LastOperationStatePending means the operation cannot run now but will later.
	LastOperationStatePending LastOperationState = "Pending"
	// LastOperationStateAborted means the operation was stopped.
	LastOperationStateAborted LastOperationState = "Aborted"
)

// LastOperation is the type, state and progress of the last operation. Every key is always written.
type LastOperation struct {
	// Description is a human-readable text.
	Description string `json:"description"`
	// LastUpdateTime is when the state last changed; the gardenlet compares it with the
	// gardener.cloud/timestamp annotation.
	LastUpdateTime metav1.Time `json:"lastUpdateTime"`
	// Progress is 0 to 100.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Progress int32 `json:"progress"`
	// State is the operation's state.
	State LastOperationState `json:"state"`
	// Type is the operation's type.
	Type LastOperationType `json:"type"`
}

// LastError is the last error of an object.
type LastError struct {
	// Description is a human-readable error.
	Description string `json:"description"`
	// TaskID is the flow task that failed (Shoots only).
	// +optional
	TaskID *string `json:"taskID,omitempty"`
	// Codes are error codes; a non-retryable one makes the Shoot Failed.
	// +optional
	Codes []ErrorCode `json:"codes,omitempty"`
	// LastUpdateTime is when the error was last reported.
	// +optional
	LastUpdateTime *metav1.Time `json:"lastUpdateTime,omitempty"`
}

// ErrorCode classifies an error for the gardenlet. It is not an enum in the schema: Gardener adds
// codes, and an older schema must not refuse them.
type ErrorCode string

const (
	// ErrorInfraUnauthenticated means credentials are missing or invalid (non-retryable).
	ErrorInfraUnauthenticated ErrorCode = "ERR_INFRA_UNAUTHENTICATED"
	// ErrorInfraUnauthorized means the credentials are valid but not allowed (non-retryable).
	ErrorInfraUnauthorized ErrorCode = "ERR_INFRA_UNAUTHORIZED"
	// ErrorInfraQuotaExceeded means a provider quota was hit (non-retryable).
	ErrorInfraQuotaExceeded ErrorCode = "ERR_INFRA_QUOTA_EXCEEDED"
	// ErrorInfraRateLimitsExceeded means a provider rate limit was hit (non-retryable).
	ErrorInfraRateLimitsExceeded ErrorCode = "ERR_INFRA_RATE_LIMITS_EXCEEDED"
	// ErrorInfraDependencies means dependent infrastructure objects block the operation (non-retryable).
	ErrorInfraDependencies ErrorCode = "ERR_INFRA_DEPENDENCIES"
	// ErrorRetryableInfraDependencies is the same as ErrorInfraDependencies, worth retrying.
	ErrorRetryableInfraDependencies ErrorCode = "ERR_RETRYABLE_INFRA_DEPENDENCIES"
	// ErrorInfraResourcesDepleted means the provider is out of capacity.
	ErrorInfraResourcesDepleted ErrorCode = "ERR_INFRA_RESOURCES_DEPLETED"
	// ErrorCleanupClusterResources means cluster resources are stuck in deletion.
	ErrorCleanupClusterResources ErrorCode = "ERR_CLEANUP_CLUSTER_RESOURCES"
	// ErrorConfigurationProblem means the user's configuration is wrong (non-retryable).
	ErrorConfigurationProblem ErrorCode = "ERR_CONFIGURATION_PROBLEM"
	// ErrorRetryableConfigurationProblem is a configuration problem that may heal.
	ErrorRetryableConfigurationProblem ErrorCode = "ERR_RETRYABLE_CONFIGURATION_PROBLEM"
	// ErrorProblematicWebhook means a user webhook breaks Kubernetes best practices (non-retryable).
	ErrorProblematicWebhook ErrorCode = "ERR_PROBLEMATIC_WEBHOOK"
)
