# The README's two commands are `go run ./examples/quickstart` and `make test`;
# `make unit` is the quick subset beside them.
.PHONY: test unit generate capiipam-components capiipam-repo quickstart bench bench-leasestore bench-capiipam bench-dhcp envtest-assets

# test runs everything CI runs: format and vet checks, race-enabled tests of
# both modules (fuzz seeds included), short fuzz runs, and the integration
# tests against a real kube-apiserver/etcd and across network namespaces.
test:
	./hack/test.sh

# unit runs the tests that need no kube-apiserver/etcd, no network namespace
# and no root: the root module, the kube module, and the examples packages
# whose tests are pure (the shared command flags and manager wiring, the
# operator's API types, the quickstart, the DHCP agent command's flag checks,
# probes and run on loopback, the capiipam and provider commands' flag checks
# and Deployment-against-flags checks). Not part of it: UNIT_SKIP (the
# manifest dry runs and run-as-role tests of the commands, against
# kube-apiserver, and the agent's unprivileged run in network namespaces, as
# root), examples/operator and examples/operator/controller,
# examples/capiipam/controller, examples/provider and examples/internal/kubetest
# (they start kube-apiserver and etcd), examples/dhcpagent/agent (network
# namespaces, as root). Fuzz seeds run, fuzzing does not; no -race.
UNIT_EXAMPLES = ./internal/command ./internal/conflict ./internal/manager ./internal/poolcache ./capiipam/internal/incluster ./operator/api/... ./quickstart ./dhcpagent ./capiipam ./provider/cmd/...
UNIT_SKIP = ^(TestManifests|TestRunAsRole|TestUnprivileged)$$
unit:
	GOWORK=off go test -count=1 ./...
	cd kube && GOWORK=off go test -count=1 ./...
	cd examples && GOWORK=off go test -count=1 -skip '$(UNIT_SKIP)' $(UNIT_EXAMPLES)

# generate rewrites every generated file (deep copies, CRDs, the operator's
# RBAC role) from the kubebuilder markers, with controller-gen at the version
# pinned in hack/generate.sh; `make test` fails when one is stale.
generate:
	./hack/generate.sh

# capiipam-components rewrites examples/capiipam/ipam-components.yaml, the
# components clusterctl installs, from examples/capiipam/config (run it after
# make generate or any change there: make test fails when it is stale).
# capiipam-repo REPO=<dir> lays out the release assets as a clusterctl
# repository in dir (examples/capiipam/README.md, "Install with clusterctl").
capiipam-components:
	cd examples && GOWORK=off go run ./capiipam/release
capiipam-repo:
	$(if $(REPO),,$(error capiipam-repo: set REPO=<dir>))
	cd examples && GOWORK=off go run ./capiipam/release -repo $(abspath $(REPO))

quickstart:
	go run ./examples/quickstart

# bench measures the ipam table of docs/performance.md (ratios from one run).
bench:
	./hack/bench.sh

# bench-leasestore measures the leasestore table of docs/performance.md;
# BASE=<git rev> runs that revision's benchmarks in the same rounds.
bench-leasestore:
	./hack/bench-leasestore.sh

# bench-capiipam measures examples/capiipam (ratios from one run): the
# in-memory allocation per claim against the in-cluster provider's algorithm,
# then, against the test kube-apiserver, the API requests per claim of a
# burst (the API server's own counts), 1,000 claims settled per second
# against 1,000 plain IPAddress creates and against the same claims answered
# by a plain client with only the contract's writes (interleaved rounds), and,
# with 100,000 IPAddresses in one pool, the start to the first claim served
# against a paginated List of them, the claim latency against a pool of 1,000
# and the heap per address, and the start with 20,000 bound claims; it prints
# the table it measured. Not part of make test.
bench-capiipam:
	./hack/bench-capiipam.sh


# bench-dhcp compares the DHCP agent with Kea under perfdhcp (root; it installs
# kea-admin and kea-dhcp4-server when missing). Not part of test.
bench-dhcp:
	./hack/bench-dhcp.sh

envtest-assets:
	./hack/envtest-assets.sh
