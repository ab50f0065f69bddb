package leasestore

import (
	"cmp"
	"errors"
	"net/netip"
	"slices"
)

// Sentinel errors of the Problems Build reports, beside ErrNotMAC and
// ErrInvalidOptions. An allocation outside the pool's range or on an
// excluded or reserved address wraps ipam.ErrOutOfRange, ipam.ErrExcluded
// or ipam.ErrReserved; an invalid Spec wraps ipam.ErrInvalidSpec.
var (
	// ErrDuplicateMAC: the MAC keeps a lower address (see Build for the
	// rule); the Problem names that address.
	ErrDuplicateMAC = errors.New("duplicate MAC")
	// ErrDuplicateAddr: the address went to another MAC, or to the same
	// MAC in another entry (see Build for the rule); the Problem names it.
	ErrDuplicateAddr = errors.New("duplicate address")
)

// Problem is one allocation of a snapshot that Build left out of the
// Store, or one pool-wide value it had to drop.
type Problem struct {
	Addr  netip.Addr // the allocation's address; the zero Addr for a pool-wide problem
	Owner string     // the allocation's owner, verbatim; "" for a pool-wide problem
	Err   error      // why, wrapping one of the sentinel errors
}

// sortProblems orders problems by Addr (pool-wide problems first), Owner
// and error text, so that the list does not depend on input order.
func sortProblems(ps []Problem) {
	slices.SortFunc(ps, func(a, b Problem) int {
		if c := a.Addr.Compare(b.Addr); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Owner, b.Owner); c != 0 {
			return c
		}
		return cmp.Compare(a.Err.Error(), b.Err.Error())
	})
}

// Error returns the text of p.Err, which names the address and owner.
func (p Problem) Error() string { return p.Err.Error() }

// Unwrap returns p.Err, so errors.Is(p, ErrDuplicateMAC) works on a
// Problem too.
func (p Problem) Unwrap() error { return p.Err }
