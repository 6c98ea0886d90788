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

# Test-only Shoot CRD from our Shoot subset (api/gardener/core/v1beta1), for the webhook integration suite.
"$CONTROLLER_GEN" crd paths=./api/gardener/core/v1beta1/... output:crd:dir=test/integration/webhook/testdata/crds
