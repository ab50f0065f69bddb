package ipam

import (
	"cmp"
	"net/netip"
	"slices"

	"github.com/vmnetkit/vmnetkit/internal/errtext"
)

// Problem is one entry of a bulk input that was left out, and why.
type Problem struct {
	Entry string     // the entry as given: ParseAllocated's map key, or Addr.String()
	Addr  netip.Addr // the parsed address; the zero Addr when Entry does not parse
	Owner string     // the owner (or marker) given with the entry
	Err   error      // wraps a sentinel error (errors.Is), e.g. ErrOutOfRange, ErrInUse, ErrOwnerHasAddr
}

// Error returns the entry, its owner and the reason it was left out.
func (p Problem) Error() string {
	return "ipam: entry " + errtext.Quote(p.Entry) + " (owner " + errtext.Quote(p.Owner) + "): " + errText(p.Err)
}

// Unwrap returns p.Err, so errors.Is(p, ErrInUse) works on a Problem too.
func (p Problem) Unwrap() error { return p.Err }

// sortProblems orders problems by Addr (invalid first), Entry, Owner and
// error text, so that a bulk input gives the same list whatever its order.
func sortProblems(ps []Problem) {
	slices.SortFunc(ps, func(a, b Problem) int {
		return cmp.Or(
			a.Addr.Compare(b.Addr),
			cmp.Compare(a.Entry, b.Entry),
			cmp.Compare(a.Owner, b.Owner),
			cmp.Compare(errText(a.Err), errText(b.Err)),
		)
	})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
