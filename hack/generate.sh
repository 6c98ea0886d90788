#!/usr/bin/env bash
# Regenerates everything derived from Go markers: deepcopy functions, CRDs, RBAC.
# Generated files are never edited by hand; `make verify` fails when they drift.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${CONTROLLER_GEN:=bin/tools/controller-gen}"

# Deepcopy for every API package.
"$CONTROLLER_GEN" object paths=./api/...
