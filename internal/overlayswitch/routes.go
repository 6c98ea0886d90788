package overlayswitch

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// routeCreatedReason is the reason cloud route controllers set on NetworkUnavailable=False once a
// node's pod CIDR is routed by the infrastructure.
const routeCreatedReason = "RouteCreated"

// NodeNotReady names a node whose pod routes are not confirmed and says why.
type NodeNotReady struct {
	Name   string
	Reason string
}

// RoutesNotReadyError is returned while some shoot nodes do not have their pod routes yet. It is
// retriable: the caller keeps the overlay manifest deployed and tries again later.
type RoutesNotReadyError struct {
	// Total is the number of nodes checked.
	Total int
	// NotReady lists the nodes without confirmed routes, sorted by name.
	NotReady []NodeNotReady
}

// maxListedNodes bounds how many nodes the error message names, so a large shoot gives a readable
// status message.
const maxListedNodes = 5

// Error says that the overlay stays on, which nodes lack routes (at most five named) and why.
func (e *RoutesNotReadyError) Error() string {
	parts := make([]string, 0, maxListedNodes+1)
	for i, n := range e.NotReady {
		if i == maxListedNodes {
			parts = append(parts, fmt.Sprintf("and %d more", len(e.NotReady)-maxListedNodes))
			break
		}
		parts = append(parts, n.Name+": "+n.Reason)
	}
	return fmt.Sprintf("waiting for routes to be created on all nodes before disabling overlay: %d of %d nodes not ready (%s); the overlay stays enabled until every node has condition NetworkUnavailable=False with reason RouteCreated",
		len(e.NotReady), e.Total, strings.Join(parts, ", "))
}

// Retriable marks the error as one that heals by itself (the cloud creates the routes).
func (e *RoutesNotReadyError) Retriable() bool { return true }

// CheckNodeRoutes lists every Node of the shoot and returns a *RoutesNotReadyError unless each one has
// condition NetworkUnavailable with status False and reason RouteCreated. A shoot without nodes passes.
func CheckNodeRoutes(ctx context.Context, shoot client.Reader) error {
	var nodes corev1.NodeList
	if err := shoot.List(ctx, &nodes); err != nil {
		return fmt.Errorf("listing shoot nodes to check their routes: %w", err)
	}
	var notReady []NodeNotReady
	for i := range nodes.Items {
		if reason, ok := nodeRoutesReady(&nodes.Items[i]); !ok {
			notReady = append(notReady, NodeNotReady{Name: nodes.Items[i].Name, Reason: reason})
		}
	}
	if len(notReady) == 0 {
		return nil
	}
	sort.Slice(notReady, func(i, j int) bool { return notReady[i].Name < notReady[j].Name })
	return &RoutesNotReadyError{Total: len(nodes.Items), NotReady: notReady}
}

// nodeRoutesReady reports whether the node's routes are confirmed and, if not, why.
func nodeRoutesReady(node *corev1.Node) (string, bool) {
	for _, c := range node.Status.Conditions {
		if c.Type != corev1.NodeNetworkUnavailable {
			continue
		}
		if c.Status == corev1.ConditionFalse && c.Reason == routeCreatedReason {
			return "", true
		}
		return fmt.Sprintf("NetworkUnavailable is %s with reason %q", c.Status, c.Reason), false
	}
	return "no NetworkUnavailable condition", false
}
