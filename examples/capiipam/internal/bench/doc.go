// Package bench holds capiipam's benchmarks against a real kube-apiserver
// (make bench-capiipam) and their machinery: the API server's CPU read
// from its own metrics (apiserver_cpu.go). The in-memory one,
// BenchmarkClaim, stays beside the code it measures in package
// controller, with its baseline in package incluster. The harness they
// share with the controller's tests is package capiipamtest.
package bench
