#!/usr/bin/env bash
# Builds the containernetworking CNI plugins (bridge, macvlan, ipvlan, host-device, ..., the same
# 18 binaries as the upstream release archive) from source, fetched through the Go module proxy,
# into OUT (default bin/cni-plugins). The Dockerfile's cni-plugins target runs it with OUT
# /usr/src/cni/bin, where multus' install-cni-plugins init container copies them from
# (internal/render/multus.go). GOOS/GOARCH select the platform; CNI_PLUGINS_VERSION the release.
#
#   hack/build-cni-plugins.sh [OUT]        (make cni-plugins)
set -euo pipefail

# The one pin of the plugins' version: the reference extension ships v1.9.0; v1.9.1 is its patch release.
version="${CNI_PLUGINS_VERSION:-v1.9.1}"
out="$(realpath -m "${1:-bin/cni-plugins}")"
mkdir -p "$out"

# Build inside the module itself so its own go.mod and go.sum pin every dependency.
dir="$(cd / && go mod download -json "github.com/containernetworking/plugins@${version}" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
if [[ -z "$dir" || ! -f "$dir/go.mod" ]]; then
  echo "build-cni-plugins: github.com/containernetworking/plugins@${version} not found in the module cache" >&2
  exit 1
fi
cd "$dir"
CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -buildvcs=false -ldflags "-s -w" -o "$out/" \
  ./plugins/main/... ./plugins/ipam/... ./plugins/meta/...
echo "build-cni-plugins: $(ls "$out" | wc -l) plugins of ${version} in $out"
