# calico-pilot Makefile. `make help` lists the targets.

SHELL := /usr/bin/env bash -o pipefail
GO ?= go
BIN_DIR := $(CURDIR)/bin
TOOLS_BIN := $(BIN_DIR)/tools
CONTROLLER_GEN := $(TOOLS_BIN)/controller-gen
KUBE_APISERVER := $(TOOLS_BIN)/kube-apiserver
ETCD := $(TOOLS_BIN)/etcd
STATICCHECK := $(TOOLS_BIN)/staticcheck
# envtest looks for kube-apiserver and etcd in KUBEBUILDER_ASSETS.
export KUBEBUILDER_ASSETS := $(TOOLS_BIN)
# The one version of the binary, both images and both charts' appVersion (VERSION file; deploy/version_test.go
# checks they agree), so the charts' default image is what `make image` builds.
VERSION ?= $(shell cat VERSION)
LDFLAGS := -X github.com/calico-pilot/calico-pilot/internal/version.Version=$(VERSION)

.DEFAULT_GOAL := help

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-18s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: build
build: ## Build bin/calico-pilot.
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN_DIR)/calico-pilot ./cmd/calico-pilot

.PHONY: tools
tools: $(CONTROLLER_GEN) $(KUBE_APISERVER) $(ETCD) $(STATICCHECK) ## Build the code generators, staticcheck and the test control plane (cached in bin/tools).

# The control-plane binaries are built from Go modules pinned in hack/tools (no downloads
# besides the Go module proxy); they are rebuilt only when missing or when the pins change.
$(CONTROLLER_GEN): hack/tools/go.mod hack/tools/go.sum
	cd hack/tools && $(GO) build -o $@ sigs.k8s.io/controller-tools/cmd/controller-gen

$(KUBE_APISERVER): hack/tools/go.mod hack/tools/go.sum
	cd hack/tools && $(GO) build -o $@ k8s.io/kubernetes/cmd/kube-apiserver

$(ETCD): hack/tools/etcd/go.mod hack/tools/etcd/go.sum
	cd hack/tools/etcd && $(GO) build -o $@ go.etcd.io/etcd/server/v3

# staticcheck has its own module so that it never moves the kube-apiserver pins.
$(STATICCHECK): hack/tools/staticcheck/go.mod hack/tools/staticcheck/go.sum
	cd hack/tools/staticcheck && $(GO) build -o $@ honnef.co/go/tools/cmd/staticcheck

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Regenerate deepcopy, CRDs and RBAC from markers.
	CONTROLLER_GEN=$(CONTROLLER_GEN) bash hack/generate.sh

.PHONY: verify
verify: generate ## Fail when generated files are out of date.
	@git diff --exit-code -- api deploy internal test || (echo "generated files are out of date: run 'make generate' and commit" >&2; exit 1)
	@test -z "$$(git status --porcelain -- api deploy internal test)" || (git status --porcelain -- api deploy internal test; echo "untracked generated files: run 'make generate' and commit" >&2; exit 1)

.PHONY: lint
lint: $(STATICCHECK) ## gofmt, go vet and staticcheck.
	@out=$$(gofmt -l $$(git ls-files '*.go')); test -z "$$out" || (echo "gofmt needed:"; echo "$$out"; exit 1)
	$(GO) vet ./...
	$(STATICCHECK) ./...

.PHONY: test
test: $(KUBE_APISERVER) $(ETCD) ## Run all tests: unit tests and the integration suites against a real kube-apiserver + etcd.
	# Three packages at once: the integration suites mostly wait (rollouts, Leases, controllers), so a
	# third one on 2 cores shortens the run that the apply suite bounds.
	$(GO) test -count=1 -p 3 ./...

.PHONY: test-unit
test-unit: ## Run the unit tests only (no control plane).
	$(GO) test -count=1 $$($(GO) list ./... | grep -v -e /test/integration -e /internal/testenv)

.PHONY: test-integration
test-integration: $(KUBE_APISERVER) $(ETCD) ## Run the envtest integration suites only.
	$(GO) test -count=1 ./internal/testenv/ ./test/integration/...

.PHONY: bench
bench: $(KUBE_APISERVER) $(ETCD) ## Run the benchmarks.
	$(GO) test -run '^$$' -bench . -benchmem ./...

.PHONY: bench-render
bench-render: ## Run the render benchmarks: render + serialize of the default and largest scenario vs. baselines.
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./internal/render/

.PHONY: bump-cases
bump-cases: ## Bump the real MetalK8s cases in ../shared/bump-cases and print the per-case table (differing lines vs new-deployed.sls).
	$(GO) test -count=1 -run '^TestRealCases$$' -v ./internal/bump/ | grep -v -e '^=== ' -e '^    --- '

.PHONY: bench-bump
bench-bump: ## Benchmark the bump of the largest real case against a plain line-diff baseline.
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./internal/bump/

.PHONY: fuzz-bump
fuzz-bump: ## Fuzz template masking and the bump merge for a minute each.
	$(GO) test -run '^$$' -fuzz '^FuzzMaskRoundTrip$$' -fuzztime 60s ./internal/bump/
	$(GO) test -run '^$$' -fuzz '^FuzzMerge$$' -fuzztime 60s ./internal/bump/

IMAGE ?= ghcr.io/calico-pilot/calico-pilot:$(VERSION)

.PHONY: image
image: ## Build the calico-pilot container image from the Dockerfile (needs a container engine; IMAGE=repo:tag names it).
	docker build --build-arg VERSION=$(VERSION) -t $(IMAGE) .

CNI_PLUGINS_IMAGE ?= ghcr.io/calico-pilot/cni-plugins:$(VERSION)
.PHONY: cni-plugins image-cni-plugins
cni-plugins: ## Build the containernetworking CNI plugins of the cni-plugins image into bin/cni-plugins (no container engine; about 20 s with a warm module cache).
	bash hack/build-cni-plugins.sh bin/cni-plugins

image-cni-plugins: ## Build the cni-plugins image (Dockerfile target cni-plugins) tagged with calico-pilot's version, as images.yaml expects.
	docker build --target cni-plugins -t $(CNI_PLUGINS_IMAGE) .

.PHONY: test-deploy
test-deploy: $(KUBE_APISERVER) $(ETCD) ## Test the admission webhook (unit + envtest suite), its command and the Helm chart (render + server-side dry run).
	$(GO) test -count=1 ./internal/webhook/ ./test/integration/webhook/ ./deploy/
	$(GO) test -count=1 -run Admission ./internal/cmd/

.PHONY: bench-admission
bench-admission: ## Benchmark one Shoot admission decision (create, update) against a decode-only baseline.
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./internal/webhook/

.PHONY: bench-controller
bench-controller: $(KUBE_APISERVER) $(ETCD) ## Controller requests per Network (first, annotated unchanged, TTL requeue, address change), then the scale benchmark (the real binary at QPS 100 and 500, 100 and 1000 Networks: time to converge, requests, RSS) beside a raw-write baseline (about 6 minutes).
	@echo "load average: $$(cat /proc/loadavg)"
	$(GO) test -count 1 -v -run 'TestRequestBudget|TestCNAMERequeueBudget' ./test/integration/controller/
	$(GO) test -run '^$$' -bench BenchmarkScale -benchtime 1x -timeout 60m ./test/integration/controller/
	@echo "load average: $$(cat /proc/loadavg)"

.PHONY: test-controller
test-controller: $(KUBE_APISERVER) $(ETCD) ## Test the extension controller (unit tests + the envtest suite with a seed and a shoot control plane + the demo).
	$(GO) test -count=1 ./internal/controller/... ./internal/managedresource/... ./internal/overlayswitch/... ./test/integration/controller/ ./test/integration/demo/

.PHONY: demo
demo: $(KUBE_APISERVER) $(ETCD) ## Run the extension controller end to end on a local control plane (example Shoot of the user guide) and print what it deployed.
	$(GO) run ./hack/demo
