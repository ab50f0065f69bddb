// Package kube converts between vmnetkit's core values and the Kubernetes
// API types the core cannot import, so that every controller converts the
// same way instead of keeping its own copy:
//
//   - FromMeta and ToMeta convert between []metav1.Condition and
//     []conditions.Condition, field for field;
//   - SetMeta is conditions.Set on a []metav1.Condition, the call a
//     reconciler makes before it writes an object's status, and FindMeta is
//     conditions.Find on one, the call that reads a stored condition;
//   - NewEpoch makes the random ID of a running process that a
//     cacheready.Machine publishes beside CacheReady.
//
// It is a module of its own (github.com/vmnetkit/vmnetkit/kube, tagged
// kube/vX.Y.Z beside the core's vX.Y.Z) that requires only the core and
// k8s.io/apimachinery, at go 1.23 and apimachinery v0.30 (controller-runtime
// v0.18): requiring it moves none of a controller's Kubernetes dependencies.
//
// # What a round trip keeps
//
// In memory, nothing is lost. FromMeta(ToMeta(c)) is c, compared with ==,
// for every condition conditions.Set returns (its LastTransitionTime is in
// UTC, in whole seconds, without a monotonic clock reading). ToMeta(FromMeta(m))
// has every field of m. Only a time's location can change: FromMeta returns
// times in UTC, the same instant, as the core's own JSON decoding does.
//
// What the API server stores is metav1.Condition's JSON form, and
// metav1.Time writes RFC 3339 in whole seconds: a LastTransitionTime read
// back from the API server has lost its fraction of a second (conditions.Set
// writes whole seconds, so nothing it writes is lost), and a zero time is
// written as null and read back as zero. metav1 reads the time back in
// time.Local; FromMeta of it equals, with ==, what conditions.Condition's own
// UnmarshalJSON makes of the same bytes. Every other field survives as is.
package kube
