#!/usr/bin/env bash
# Regenerates everything derived from Go markers: deepcopy functions, CRDs, RBAC.
# Generated files are never edited by hand; `make verify` fails when they drift.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${CONTROLLER_GEN:=bin/tools/controller-gen}"

# Deepcopy for every API package.
"$CONTROLLER_GEN" object paths=./api/...

# The controller's RBAC, from the +kubebuilder:rbac markers under internal/, into the chart
# (deploy/calico-pilot/templates/rbac.yaml renames and binds it). Removed first so that a dropped marker
# cannot leave a stale rule behind.
rm -f deploy/calico-pilot/files/rbac/role.yaml
"$CONTROLLER_GEN" rbac:roleName=calico-pilot paths=./internal/... output:rbac:dir=deploy/calico-pilot/files/rbac

# The standalone Cluster CRD (api/standalone/v1alpha1): embedded in the binary (api/standalone/crds,
# `calico-pilot manage` installs it at start) and shipped with the manage chart.
rm -f api/standalone/crds/*.yaml
"$CONTROLLER_GEN" crd paths=./api/standalone/v1alpha1/... output:crd:dir=./api/standalone/crds
mkdir -p deploy/calico-pilot-manage/crds
install -m 0644 api/standalone/crds/standalone.calico-pilot.dev_clusters.yaml deploy/calico-pilot-manage/crds/
# The plain manifest of manage: the chart rendered with its defaults, the CRD first.
mkdir -p deploy/manage
go run ./hack/managemanifest deploy/calico-pilot-manage deploy/manage/manage.yaml

# Test-only Shoot CRD from our Shoot subset (api/gardener/core/v1beta1), for the webhook integration suite.
"$CONTROLLER_GEN" crd paths=./api/gardener/core/v1beta1/... output:crd:dir=test/integration/webhook/testdata/crds

# Calico's crd.projectcalico.org/v1 CRDs from our own types (api/projectcalico/v1). Floats are
# allowed because Calico's policy and tier "order" fields are numbers on the wire. Removed first so
# that a dropped kind cannot leave a stale manifest behind (the directory is embedded as a whole).
rm -f api/projectcalico/crds/*.yaml
"$CONTROLLER_GEN" crd:allowDangerousTypes=true paths=./api/projectcalico/v1/... output:crd:dir=./api/projectcalico/crds
# controller-gen has no marker for nullable array items; Calico IPAM stores free ordinals of
# IPAMBlock.spec.allocations as null, so the schema must allow them (as Calico's own CRD does).
go run ./hack/crdpatch -nullable-items spec.allocations ./api/projectcalico/crds/crd.projectcalico.org_ipamblocks.yaml
# Nor for a pattern on int-or-string items: Calico's numorstring.Port lists carry "^.*" on their items
# (docs/calico-components.md §4), which controller-gen refuses on a non-string type.
go run ./hack/crdpatch -pattern '^.*' -pattern-items spec.kubeNodePortRanges ./api/projectcalico/crds/crd.projectcalico.org_felixconfigurations.yaml
for kind in globalnetworkpolicies networkpolicies stagedglobalnetworkpolicies stagednetworkpolicies; do
	args=()
	for dir in ingress egress; do
		for side in source destination; do
			for field in ports notPorts; do
				args+=(-pattern-items "spec.${dir}[].${side}.${field}")
			done
		done
	done
	go run ./hack/crdpatch -pattern '^.*' "${args[@]}" "./api/projectcalico/crds/crd.projectcalico.org_${kind}.yaml"
done
# AdminNetworkPolicy and BaselineAdminNetworkPolicy: the module's own generated CRDs of the
# experimental channel (the one with spec.egress[].to[].networks/nodes, which Calico v3.31 ships).
# Copied rather than regenerated: the module's channel split is done by its own tooling, not markers.
go mod download sigs.k8s.io/network-policy-api k8s.io/autoscaler/vertical-pod-autoscaler
npa_dir="$(go list -m -f '{{.Dir}}' sigs.k8s.io/network-policy-api)"
for kind in adminnetworkpolicies baselineadminnetworkpolicies; do
	install -m 0644 "$npa_dir/config/crd/experimental/policy.networking.k8s.io_${kind}.yaml" \
		"./api/projectcalico/crds/policy.networking.k8s.io_${kind}.yaml"
done

# Calico v3.32's CRD set: the v3.31 crd.projectcalico.org CRDs above with the schema changes of
# hack/crdline/v3.32.yaml applied (each tagged with its row of docs/calico-v3.32.md
# §2.1–2.3), the ClusterNetworkPolicy CRD of network-policy-api v0.2.0's standard channel (what Calico
# v3.32.1 ships, docs/calico-v3.32.md §2.1; downloaded by version, go.mod keeps v0.1.5 for the Go types), and the
# AdminNetworkPolicy/BaselineAdminNetworkPolicy CRDs unchanged: CRDs are never deleted (the resource
# manager deletes whatever leaves a ManagedResource, and v3.31 components need them after a downgrade).
rm -rf api/projectcalico/crds/v3.32 && mkdir -p api/projectcalico/crds/v3.32
go run ./hack/crdline -changes hack/crdline/v3.32.yaml -from api/projectcalico/crds -out api/projectcalico/crds/v3.32
for kind in adminnetworkpolicies baselineadminnetworkpolicies; do
	install -m 0644 "./api/projectcalico/crds/policy.networking.k8s.io_${kind}.yaml" "./api/projectcalico/crds/v3.32/"
done
go mod download sigs.k8s.io/network-policy-api@v0.2.0
cnp_dir="$(go list -m -f '{{.Dir}}' sigs.k8s.io/network-policy-api@v0.2.0)"
install -m 0644 "$cnp_dir/config/crd/standard/policy.networking.k8s.io_clusternetworkpolicies.yaml" \
	"./api/projectcalico/crds/v3.32/policy.networking.k8s.io_clusternetworkpolicies.yaml"

# Test-only CRDs for Gardener's Network, Cluster, DNSRecord and ManagedResource, from our wire-compatible
# subsets (api/gardener/extensions, api/gardener/resources), for the integration suites' control plane.
# A real seed serves Gardener's own CRDs. Removed first so that a dropped kind cannot leave a stale file.
rm -f test/integration/crds/gardener/*.yaml
"$CONTROLLER_GEN" crd paths=./api/gardener/extensions/v1alpha1/... paths=./api/gardener/resources/v1alpha1/... output:crd:dir=test/integration/crds/gardener

# CRDs the render acceptance suite (test/integration/render) installs besides Calico's: the VPA CRD as
# the VPA module ships it, and the ScrapeConfig CRD generated from the prometheus-operator module's
# types (descriptions dropped: the suite checks structure).
render_crds=test/integration/render/testdata/crds
rm -rf "$render_crds" && mkdir -p "$render_crds"
vpa_dir="$(go list -m -f '{{.Dir}}' k8s.io/autoscaler/vertical-pod-autoscaler)"
install -m 0644 "$vpa_dir/deploy/vpa-v1-crd-gen.yaml" "$render_crds/autoscaling.k8s.io_verticalpodautoscalers.yaml"
sc_tmp="$(mktemp -d)"
"$CONTROLLER_GEN" crd:maxDescLen=0 paths=github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1alpha1 output:crd:dir="$sc_tmp"
install -m 0644 "$sc_tmp/monitoring.coreos.com_scrapeconfigs.yaml" "$render_crds/monitoring.coreos.com_scrapeconfigs.yaml"
rm -rf "$sc_tmp"
