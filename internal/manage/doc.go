// Package manage is `calico-pilot manage`: the in-cluster controller of a cluster without Gardener.
// It reconciles the one Cluster object (standalone.calico-pilot.dev/v1alpha1, named default) with
// the same apply as `calico-pilot apply -f` (internal/standalone), every five minutes and whenever
// the Cluster or one of Calico's workloads changes, so that Typha's certificates are renewed, hand
// edits are restored (each with an Event naming the object, the field and the manager) and the
// Cluster's status says what runs and what blocks. docs/manage.md is the user's guide.
package manage
