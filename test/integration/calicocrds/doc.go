// Package calicocrds is the integration suite of the generated Calico, AdminNetworkPolicy and
// BaselineAdminNetworkPolicy CRDs (api/projectcalico/crds): it installs all 24 into a real
// kube-apiserver and proves that objects built from our Go types are accepted, stored and read back
// unchanged, that the schemas' validation rejects bad values with the field path, and that schema
// defaults are applied.
package calicocrds
