// Package capiipamtest is the test harness of capiipam's controller tests
// and of its benchmarks (package bench): one kube-apiserver per test
// binary with capiipam's and Cluster API's CRDs, the provider started in
// the test process, the objects the tests make, and a set of claims over
// two pools with the checks every burst ends with (no address twice,
// counts exact). It is test machinery: no command imports it.
package capiipamtest
