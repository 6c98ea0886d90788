// Package rollout moves shoots from one Calico release line to another in waves that stop
// themselves (docs/upgrades.md). The wave logic (who belongs to a wave, when a member succeeded or
// failed, when the rollout halts and when the next wave opens) is pure: Evaluate takes the
// operator's Rollout, the recorded State and what is observed of each shoot, and returns the next
// State. Controller runs it periodically in the leader-elected manager (one worker, the only writer
// of the State ConfigMap) and publishes the open waves to the Network actuator through a View.
// Components reads how a shoot's calico-node DaemonSet, Typha and kube-controllers Deployments rolled
// out and names the one that holds; the actuator uses it too, to step a move in Calico's order.
package rollout
