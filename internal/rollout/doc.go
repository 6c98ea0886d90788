// Package rollout moves shoots from one Calico release to another (a line up or down, or a patch
// release) in waves that stop themselves (docs/upgrades.md). The wave logic (who belongs to a wave,
// when a member succeeded or failed, when the rollout halts and when the next wave opens) is pure:
// Evaluate takes the operator's Rollout, the recorded State and what is observed of each shoot, and
// returns the next State. Controller runs it periodically in the leader-elected manager (one worker,
// the only writer of the State ConfigMap) and publishes the open waves to the Network actuator
// through a View. ReadWorkload reads how one of a shoot's Calico workloads rolled out: the actuator
// uses it to step a move in Calico's order; ReadComponents reads all three (calico-node, Typha and
// kube-controllers) to judge a wave member and names the one that holds.
package rollout
