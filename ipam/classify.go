package ipam

import (
	"errors"
	"fmt"

	"github.com/vmnetkit/vmnetkit/internal/errtext"
)

// Canonical returns owner as a pool of kind k stores it (for MACOwners, the
// lowercase colon form of a 6-byte MAC), or an error wrapping
// ErrInvalidOwner that quotes owner and says why it cannot own an address:
// the rule Allocate applies, for an adapter that must name the bad input
// before it reaches a pool. It allocates only to build an error or to
// re-spell a MAC.
func (k OwnerKind) Canonical(owner string) (string, error) {
	c, err := k.canonical(owner)
	if err != nil {
		return "", fmt.Errorf("ipam: owner %s: %w", errtext.Quote(owner), err)
	}
	return c, nil
}

// IsExhausted reports whether err says that a pool had no free address
// left (ErrExhausted): a release can lift it, for any caller.
func IsExhausted(err error) bool { return errors.Is(err, ErrExhausted) }

// IsConflict reports whether err says that the caller's input clashes with
// what the pool holds now (ErrInUse, ErrOwnerHasAddr, ErrNotAllocated): the
// same call can succeed once the pool's state changes.
func IsConflict(err error) bool {
	return errors.Is(err, ErrInUse) || errors.Is(err, ErrOwnerHasAddr) || errors.Is(err, ErrNotAllocated)
}

// IsInputError reports whether err says that the caller's input can never
// succeed against the pool's spec (ErrInvalidSpec, ErrOutOfRange,
// ErrExcluded, ErrReserved, ErrInvalidOwner, ErrInvalidAddr, ErrMarker):
// the input or the spec must change first.
//
// Every sentinel of the package is in exactly one of IsExhausted,
// IsConflict and IsInputError; an error that wraps none (not the core's)
// is in none.
func IsInputError(err error) bool {
	for _, target := range [...]error{ErrInvalidSpec, ErrOutOfRange, ErrExcluded, ErrReserved, ErrInvalidOwner, ErrInvalidAddr, ErrMarker} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
