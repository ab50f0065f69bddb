# The README's two commands are `go run ./examples/quickstart` and `make test`;
# `make unit` is the quick subset beside them.
.PHONY: test unit quickstart bench bench-leasestore bench-dhcp envtest-assets

# test runs everything CI runs: format and vet checks, race-enabled tests of
# both modules (fuzz seeds included), short fuzz runs, and the integration
# tests against a real kube-apiserver/etcd and across network namespaces.
test:
	./hack/test.sh

# unit runs the tests that need no kube-apiserver/etcd, no network namespace
# and no root: the root module, and the examples packages whose tests are pure
# (the shared command flags, the operator's API types, kubebridge, the quickstart, the DHCP agent
# command's flag checks and its run on loopback). Not part of it: examples/operator and
# examples/operator/controller, examples/provider and examples/internal/kubetest
# (they start kube-apiserver and etcd), examples/dhcpagent/agent (network
# namespaces, as root). Fuzz seeds run, fuzzing does not; no -race.
UNIT_EXAMPLES = ./internal/command ./kubebridge ./operator/api/... ./quickstart ./dhcpagent
unit:
	GOWORK=off go test -count=1 ./...
	cd examples && GOWORK=off go test -count=1 $(UNIT_EXAMPLES)

quickstart:
	go run ./examples/quickstart

# bench measures the ipam table of docs/performance.md (ratios from one run).
bench:
	./hack/bench.sh

# bench-leasestore measures the leasestore table of docs/performance.md;
# BASE=<git rev> runs that revision's benchmarks in the same rounds.
bench-leasestore:
	./hack/bench-leasestore.sh

# bench-dhcp compares the DHCP agent with Kea under perfdhcp (root; it installs
# kea-admin and kea-dhcp4-server when missing). Not part of test.
bench-dhcp:
	./hack/bench-dhcp.sh

envtest-assets:
	./hack/envtest-assets.sh
