// Package overlayswitch decides whether switching a shoot's Calico overlay off has to wait for the
// cloud's pod routes, and checks those routes on the shoot's Nodes (the SeamlessOverlaySwitch feature
// gate).
//
// The check only applies to an on -> off switch on a shoot whose kube-apiserver serves the
// MutatingAdmissionPolicy API (Kubernetes >= 1.36, or the MutatingAdmissionPolicy feature gate plus a
// matching runtimeConfig entry): only there does the provider's MutatingAdmissionPolicy stop old
// calico-node pods from marking nodes NetworkUnavailable during the rollout. While any node lacks
// NetworkUnavailable=False with reason RouteCreated, the caller keeps the old manifest in place and
// retries.
package overlayswitch
