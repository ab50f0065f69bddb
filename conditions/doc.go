// Package conditions sets Kubernetes-style status conditions with an injected
// clock. The CacheReady state machine of a controller that rebuilds an
// in-memory cache, built on this package, is in the cacheready package
// (github.com/vmnetkit/vmnetkit/conditions/cacheready).
//
// # Conditions
//
// Condition has exactly the fields and JSON form of the Kubernetes API's
// metav1.Condition, so an adapter converts with a field copy or a JSON round
// trip; the package itself imports nothing from Kubernetes. The functions are
// free functions over a []Condition:
//
//   - Set adds or replaces a condition, keeps the order of the others, moves
//     LastTransitionTime to now (whole seconds, UTC) only when Status
//     changes, and reports whether anything changed, so a controller skips a
//     status write that changes nothing and does not loop on its own writes.
//   - Find, Remove, IsTrue, IsFalse and IsUnknown (absent reads as Unknown).
//   - Validate applies the API server's rules and lists every violation;
//     ValidReason checks a reason alone.
//   - Summary derives one condition (Ready) from several, with
//     negative-polarity types and a reason and message that name what is
//     not good.
//   - PublishableMessage makes a message the API server stores unchanged.
//
// Time is always a parameter: nothing here reads the clock.
//
// Everything in the package is deterministic, allocation-light and safe for
// concurrent use by value: there is no shared state.
package conditions
