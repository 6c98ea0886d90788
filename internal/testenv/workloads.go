package testenv

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ReportRolledOut plays the workload controllers envtest does not run, once: every DaemonSet whose
// status has not observed its generation is reported rolled out on nodes nodes, every such Deployment
// on its replicas (1 when unset), by a status update. Errors are left to the next call (a conflict
// with another writer, a deleted object).
func ReportRolledOut(ctx context.Context, c client.Client, nodes int32) {
	var dss appsv1.DaemonSetList
	if err := c.List(ctx, &dss); err == nil {
		for i := range dss.Items {
			ds := &dss.Items[i]
			if ds.Status.ObservedGeneration == ds.Generation {
				continue
			}
			ds.Status = appsv1.DaemonSetStatus{ObservedGeneration: ds.Generation, DesiredNumberScheduled: nodes, CurrentNumberScheduled: nodes,
				UpdatedNumberScheduled: nodes, NumberReady: nodes, NumberAvailable: nodes}
			_ = c.Status().Update(ctx, ds)
		}
	}
	var ds appsv1.DeploymentList
	if err := c.List(ctx, &ds); err == nil {
		for i := range ds.Items {
			d := &ds.Items[i]
			if d.Status.ObservedGeneration == d.Generation {
				continue
			}
			r := int32(1)
			if d.Spec.Replicas != nil {
				r = *d.Spec.Replicas
			}
			d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: r, UpdatedReplicas: r, ReadyReplicas: r, AvailableReplicas: r}
			_ = c.Status().Update(ctx, d)
		}
	}
}
