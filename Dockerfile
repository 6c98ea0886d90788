# Builds the calico-pilot image: one static binary for every subcommand (controller, admission, render,
# validate, bump), on a distroless base that has no shell or package manager, running as the
# unprivileged user 65532 (the chart's runAsUser; the root filesystem can be read-only).
#
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) -t calico-pilot:dev .

ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION} AS build
WORKDIR /src
# Module downloads are cached in their own layer, so source changes do not refetch them.
COPY go.mod go.sum ./
RUN go mod download
COPY api/ api/
COPY cmd/ cmd/
COPY internal/ internal/
ARG VERSION=v0.1.0-dev
ARG TARGETOS=linux
ARG TARGETARCH=amd64
# CGO off gives a static binary that runs on distroless/static; -trimpath and -buildvcs=false keep the
# build reproducible; -s -w drop symbol tables.
RUN CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} \
    go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X github.com/calico-pilot/calico-pilot/internal/cmd.Version=${VERSION}" \
      -o /out/calico-pilot ./cmd/calico-pilot

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/calico-pilot /calico-pilot
USER 65532:65532
ENTRYPOINT ["/calico-pilot"]
