// Package controller holds the integration suite of the Network controller: it runs the real
// controller (manager, reconciler, actuator, production renderer) against a real kube-apiserver +
// etcd playing the seed, and a second control plane playing the shoot (nodes for the overlay switch).
package controller
