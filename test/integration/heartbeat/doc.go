// Package heartbeat tests the heartbeat Lease (internal/heartbeat) and the Gardener extension flags of
// `calico-pilot controller` against a real kube-apiserver: the Lease is created and its renewal observed,
// both for the Runnable alone and for the controller started with the reference chart's argument list.
package heartbeat
