# The README's two commands are `go run ./examples/quickstart` and `make test`.
.PHONY: test quickstart bench bench-leasestore envtest-assets

# test runs everything CI runs: format and vet checks, race-enabled tests of
# both modules (fuzz seeds included), short fuzz runs, and the integration
# tests against a real kube-apiserver/etcd and across network namespaces.
test:
	./hack/test.sh

quickstart:
	go run ./examples/quickstart

# bench measures the README's performance table (ratios from one run).
bench:
	./hack/bench.sh

# bench-leasestore measures the README's leasestore table; BASE=<git rev>
# runs that revision's benchmarks in the same rounds.
bench-leasestore:
	./hack/bench-leasestore.sh

envtest-assets:
	./hack/envtest-assets.sh
