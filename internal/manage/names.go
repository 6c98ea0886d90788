package manage

import "time"

// Names and annotations of the manage controller.
const (
	// ControllerName names the controller in logs and Events.
	ControllerName = "calico-pilot-manage"
	// LeaderElectionID is the Lease the manage replicas elect their leader with, in calico-pilot's
	// namespace (standalone.Namespace). `apply -f` looks at it to find a running controller.
	LeaderElectionID = "calico-pilot-manage"

	// AnnotationAcceptBlockers on the Cluster lists the plan blockers the owner accepts, by their
	// object as the status lists them, separated by ";" (apply's --accept-blocker).
	AnnotationAcceptBlockers = "calico-pilot.dev/accept-blockers"
	// AnnotationAllowDisruption "true" on the Cluster accepts disruptive changes (apply's
	// --allow-disruption).
	AnnotationAllowDisruption = "calico-pilot.dev/allow-disruption"

	// DefaultInterval is how often the Cluster is reconciled when nothing changes: Typha's
	// certificates are checked then.
	DefaultInterval = 5 * time.Minute
	// heldRetry is how soon a reconcile is retried when an `apply` holds the apply Lease.
	heldRetry = 15 * time.Second
)

// Reasons of the Cluster's conditions: each says what to do (docs/manage.md).
const (
	ReasonApplied              = "Applied"
	ReasonInvalidSpec          = "InvalidSpec"
	ReasonBlocked              = "Blocked"
	ReasonDisruptive           = "DisruptiveChange"
	ReasonAdoptionNeeded       = "AdoptionNeeded"
	ReasonApplyInProgress      = "ApplyInProgress"
	ReasonRolloutTimedOut      = "RolloutTimedOut"
	ReasonApplyFailed          = "ApplyFailed"
	ReasonMoving               = "Moving"
	ReasonStable               = "Stable"
	ReasonAsExpected           = "AsExpected"
	ReasonComponentsNotAsAsked = "ComponentsNotAsAsked"
)
