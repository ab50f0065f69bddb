// Package command holds what every command in examples shares, so that the
// binaries agree: one logging story (a logr.Logger, what controller-runtime
// uses, written by klog's text logger, with the same -v and -vmodule
// flags); one flag vocabulary (Flags: -kubeconfig, then $KUBECONFIG, the
// in-cluster config, ~/.kube/config; -metrics-bind-address and
// -health-probe-bind-address, where "0", or "", is off; -leader-elect and
// -leader-election-namespace); and one exit rule (-h prints the flags and
// exits 0; any other error is printed as "name: error" and exits 1).
package command
