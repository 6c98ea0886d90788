// Package rollout is the integration suite of the Calico rollout: the real controller (network.NewManager
// with a calico.rollout) against a seed control plane and a fleet of shoot API servers over one etcd
// (testenv.StartShoots). The test plays the shoots' resource manager and kubelet: it applies the
// calico-node DaemonSet and Typha Deployment of each stored ManagedResource to its shoot and reports
// their rollout in status.
package rollout
