// Package kubetest starts a real kube-apiserver and etcd on loopback for the
// examples' integration tests, through controller-runtime's envtest.
//
// The binaries are not downloaded: the README's test command (`make test`)
// builds them from the Go module proxy once per machine and exports
// KUBEBUILDER_ASSETS. A test run without them fails (it never skips) and says
// how to get them.
//
// The control plane's own output is discarded, and controller-runtime's global
// logger, unless the caller set one first, prints errors only.
package kubetest
