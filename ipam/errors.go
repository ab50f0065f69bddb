package ipam

import "errors"

// Sentinel errors. Every error a Pool returns wraps one of them (test with
// errors.Is); the message names the operation, the quoted input and the pool's
// prefix, with the sentinel's text last:
//
//	ipam: allocate "52:54:00:aa:bb:cc" in 10.0.0.0/29: pool exhausted
var (
	// ErrInvalidSpec: the Spec is malformed (see Spec.Validate).
	ErrInvalidSpec = errors.New("invalid spec")
	// ErrExhausted: no free address is left.
	ErrExhausted = errors.New("pool exhausted")
	// ErrInUse: the address is held by another owner, or appears twice in a bulk input.
	ErrInUse = errors.New("address in use")
	// ErrOutOfRange: the address is not in the pool's [Start, End] range
	// (outside the prefix, the other family, a zoned address, the zero Addr,
	// or a network, broadcast or subnet-router anycast address).
	ErrOutOfRange = errors.New("address out of range")
	// ErrExcluded: the address is in one of the Spec's Exclude ranges.
	ErrExcluded = errors.New("address excluded")
	// ErrReserved: the address is one of the Spec's Reserved addresses.
	ErrReserved = errors.New("address reserved")
	// ErrNotAllocated: the address is not allocated.
	ErrNotAllocated = errors.New("address not allocated")
	// ErrOwnerHasAddr: the owner already holds a different address.
	ErrOwnerHasAddr = errors.New("owner already holds an address")
	// ErrInvalidOwner: the pool's OwnerKind refuses the owner: it is empty,
	// one of the markers MarkerExcluded and MarkerReserved (a status map
	// could not tell it apart from a marker), not valid UTF-8 (JSON would
	// change it), or, in a MACOwners pool, not a MAC.
	ErrInvalidOwner = errors.New("invalid owner")
	// ErrInvalidAddr: a bulk input's address does not parse, is not in
	// canonical form (netip.Addr.String), has a zone, or is the zero Addr.
	ErrInvalidAddr = errors.New("invalid address")
	// ErrMarker: a status map marks an address MarkerExcluded or
	// MarkerReserved that the Spec does not exclude or reserve.
	ErrMarker = errors.New("marker not backed by the spec")
)

// Markers that a status map (see ParseAllocated) uses in place of an owner.
const (
	MarkerExcluded = "EXCLUDED"
	MarkerReserved = "RESERVED"
)

// validOwner reports whether owner can hold an address.
func validOwner(owner string) bool {
	return owner != "" && owner != MarkerExcluded && owner != MarkerReserved
}
