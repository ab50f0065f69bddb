// Package ipam allocates IP addresses to owners (VM NICs) from an IPv4 or
// IPv6 CIDR, within an optional start/end range, never handing out excluded
// or reserved addresses. Its memory follows what is allocated, never the size
// of the range, and a pool's snapshot restores exactly.
//
// A Spec describes a pool; New validates it and returns an empty Pool.
// Allocate hands out an address by the Spec's Strategy (the lowest free
// address, or the next one after the last handed out) and is idempotent per
// owner; AllocateAddr takes a given address; Release and ReleaseOwner free
// one. Stats counts exactly, even for a /0 (Count holds 128 bits).
//
// Snapshot and Restore persist a pool: Restore gives the same pool whatever
// the order of the snapshot's allocations, and never fails as a whole on a
// bad entry: it keeps what it can and lists the rest as Problems.
// ParseAllocated reads the common status-map form, address to owner or
// marker, into a Snapshot.
//
// Internally a pool is a sparse 64-ary radix tree over address offsets: a
// subtree that is entirely taken is one bit in its parent, so the lowest free
// address is found in a few steps however many addresses are taken before
// it, and an excluded range costs memory proportional to its boundary.
//
// Errors wrap the package's sentinel errors (ErrExhausted, ErrInUse, ...),
// for errors.Is. No input makes the package panic. A Pool is not safe for
// concurrent use; callers serialize access to it. The package does no I/O,
// reads no clock and keeps no global state.
package ipam
