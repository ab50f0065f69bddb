// Package errtext quotes the values that the errors of the core packages
// name, so that the error of any input costs a constant, not the size of
// the input: a 10 MB string of NUL bytes is quoted in a few hundred bytes,
// not 40 MB. Both ipam and leasestore quote through it, so the rule is
// written once.
package errtext
