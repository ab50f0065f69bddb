// Package conditions sets Kubernetes-style status conditions with an injected
// clock, and decides the CacheReady condition of a controller that rebuilds an
// in-memory cache, so that a restarted process never trusts a True written by
// its predecessor.
package conditions
