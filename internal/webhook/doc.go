// Package webhook is calico-pilot's validating admission webhook for Gardener Shoots
// (core.gardener.cloud/v1beta1) whose spec.networking.type is calico.
//
// On create and update it runs the same strict decoding and validation as `calico-pilot validate` and
// denies invalid Shoots with every error's field path. On update it also compares the old and the new
// Shoot: changes that would break a cluster with running nodes are denied with the reason, and
// disruptive but legal changes are allowed with admission warnings that say what will happen
// (transition.go lists the rules). Shoots of other networking types and workerless Shoots are allowed
// untouched.
package webhook
