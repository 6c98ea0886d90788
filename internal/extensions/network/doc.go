// Package network is the generic lifecycle of a Gardener extension's Network resources, written
// after Gardener's extension library (extensions/pkg/controller/network, docs/gardener-api-types.md
// section 4) so that it reads like it and could be replaced by it: the watch and its predicates,
// the operation annotation, the finalizer, the choice of operation (Create, Reconcile, Delete,
// Migrate, Restore), lastOperation / lastError / observedGeneration, events, and how an error is
// retried. What a Network of one type means is an Actuator's business; this package knows no
// Calico.
//
// Where it differs from the library, on purpose and with a reason at the place:
//   - Reconcile and Restore return a requeue delay besides the error (the library's actuators can
//     only ask for a requeue with a RequeueAfterError, which writes an Error status), and Reconcile
//     is told whether the reconcile was asked for (see Actuator);
//   - a reconcile writes one status (Succeeded or Error) after the actuator, with the actuator's
//     own status changes, instead of Processing before it; an unasked reconcile that changes
//     nothing writes none;
//   - errors carrying ERR_CONFIGURATION_PROBLEM are terminal until the Network changes;
//   - events are recorded (the library records none);
//   - with IgnoreOperationAnnotation a Cluster change really enqueues its Networks.
package network
