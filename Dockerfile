# Builds the calico-pilot image: one static binary for every subcommand (controller, admission, render,
# validate, bump), on a distroless base that has no shell or package manager, running as the
# unprivileged user 65532 (the chart's runAsUser; the root filesystem can be read-only).
#
#   docker build --build-arg VERSION=$(cat VERSION) -t ghcr.io/calico-pilot/calico-pilot:$(cat VERSION) .   (make image)
#
# Target cni-plugins is the image multus' install-cni-plugins init container runs (multus.installCNIPlugins):
# the containernetworking plugins built from source in /usr/src/cni/bin, on alpine for the init container's
# /bin/sh. It is tagged with calico-pilot's own version (images.yaml has no tag for it):
#
#   docker build --target cni-plugins -t ghcr.io/calico-pilot/cni-plugins:$(VERSION) .   (make image-cni-plugins)

ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION} AS build
WORKDIR /src
# Module downloads are cached in their own layer, so source changes do not refetch them.
COPY go.mod go.sum ./
RUN go mod download
COPY api/ api/
COPY cmd/ cmd/
COPY internal/ internal/
ARG VERSION=v0.1.0
ARG TARGETOS=linux
ARG TARGETARCH=amd64
# CGO off gives a static binary that runs on distroless/static; -trimpath and -buildvcs=false keep the
# build reproducible; -s -w drop symbol tables.
RUN CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} \
    go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X github.com/calico-pilot/calico-pilot/internal/version.Version=${VERSION}" \
      -o /out/calico-pilot ./cmd/calico-pilot

FROM golang:${GO_VERSION} AS cni-plugins-build
COPY hack/build-cni-plugins.sh /build-cni-plugins.sh
ARG TARGETOS=linux
ARG TARGETARCH=amd64
RUN GOOS=${TARGETOS} GOARCH=${TARGETARCH} bash /build-cni-plugins.sh /usr/src/cni/bin

FROM alpine:3.24.1 AS cni-plugins
COPY --from=cni-plugins-build /usr/src/cni/bin/ /usr/src/cni/bin/

# The calico-pilot image (the default target: last stage).
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/calico-pilot /calico-pilot
USER 65532:65532
ENTRYPOINT ["/calico-pilot"]
