package ipam

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/vmnetkit/vmnetkit/internal/u128"
)

// MaxExcludedMarkers is the most MarkerExcluded entries FormatAllocated
// writes: the lowest excluded addresses of the range. An exclusion may
// hold far more addresses than an object can (a /80 of a /64), and markers
// only inform a reader: ParseAllocated accepts their absence.
const MaxExcludedMarkers = 1024

// FormatAllocated returns the status-map form of s that ParseAllocated
// reads: every allocation as address (netip.Addr.String) to owner, every
// Reserved address inside [Start, End] as MarkerReserved and the lowest
// MaxExcludedMarkers excluded addresses inside [Start, End] as
// MarkerExcluded. An allocation wins over a marker for the same address.
// For an invalid Spec it writes the allocations alone.
//
// For a snapshot that Pool.Snapshot or ParseAllocated returns,
// ParseAllocated(s.Spec, FormatAllocated(s)) gives s back with no problem.
func FormatAllocated(s Snapshot) map[string]string {
	l, err := compile(s.Spec)
	if err != nil {
		m := make(map[string]string, len(s.Allocations))
		for _, a := range s.Allocations {
			m[a.Addr.String()] = a.Owner
		}
		return m
	}
	markers := minU128(l.excluded, u128.From64(MaxExcludedMarkers)).Lo + uint64(len(l.reserved))
	m := make(map[string]string, uint64(len(s.Allocations))+markers)
	for _, o := range l.reserved {
		m[l.addr(o).String()] = MarkerReserved
	}
	n := 0
	for _, sp := range l.exclude {
		for o := sp.lo; n < MaxExcludedMarkers; o = o.Add64(1) {
			if !l.inReserved(o) {
				m[l.addr(o).String()] = MarkerExcluded
				n++
			}
			if o == sp.hi {
				break
			}
		}
	}
	for _, a := range s.Allocations {
		m[a.Addr.String()] = a.Owner
	}
	return m
}

func minU128(a, b u128.U128) u128.U128 {
	if a.Less(b) {
		return a
	}
	return b
}

// ParseAllocated reads the status-map form of a pool's allocations, address
// to owner, where the markers MarkerExcluded and MarkerReserved stand for an
// address the spec excludes or reserves:
//
//	{"10.0.0.5": "52:54:00:aa:bb:cc", "10.0.0.1": "RESERVED", "10.0.0.9": "EXCLUDED"}
//
// It returns the snapshot of the allocations a pool for spec keeps (as
// Restore would, owners in the form spec.Owners gives them) and, sorted,
// the entries it left out: a key that does not parse or is not in
// canonical form ("010.0.0.1", " 10.0.0.1", a zone, an IPv4-mapped IPv6
// address: ErrInvalidAddr), an owner the spec's OwnerKind refuses
// (ErrInvalidOwner), a marker the spec does not back (ErrMarker), an owner
// on an address outside the range, excluded or reserved, and the
// duplicates Restore reports. Markers are not allocations; an excluded or
// reserved address the map omits is fine. If spec is invalid, every entry
// is a Problem wrapping ErrInvalidSpec. m is not modified.
func ParseAllocated(spec Spec, m map[string]string) (Snapshot, []Problem) {
	snap := Snapshot{Spec: spec.clone()}
	l, err := compile(spec)
	if err != nil {
		problems := make([]Problem, 0, len(m))
		for key, owner := range m {
			addr, keyErr := parseStatusKey(key, familyOf(spec.Prefix))
			if keyErr != nil {
				keyErr = fmt.Errorf("%w (and %w)", err, keyErr)
			} else {
				keyErr = err
			}
			problems = append(problems, Problem{Entry: key, Addr: addr, Owner: owner, Err: keyErr})
		}
		sortProblems(problems)
		return snap, problems
	}
	c := collectStatusMap(l, m)
	entries := c.resolve()
	snap.Allocations = make([]Allocation, len(entries))
	for i, e := range entries {
		snap.Allocations[i] = Allocation{l.addr(e.o), e.owner}
	}
	sortProblems(c.problems)
	return snap, c.problems
}

// RestoreAllocated returns the pool that spec and its status map m
// describe, and the entries it left out: what Restore(ParseAllocated(spec,
// m)) returns, with the problems of both sorted together, in one pass
// over the entries. It is how a controller rebuilds its pool after a
// restart. The error is non-nil only for an invalid spec (it wraps
// ErrInvalidSpec). m is not modified.
func RestoreAllocated(spec Spec, m map[string]string) (*Pool, []Problem, error) {
	l, err := compile(spec)
	if err != nil {
		return nil, nil, err
	}
	p, problems := restore(collectStatusMap(l, m))
	sortProblems(problems)
	return p, problems, nil
}

// collectStatusMap collects the allocations of m for a pool of l, and
// reports the entries that are none: keys that do not parse, markers the
// spec does not back, allocations no pool of l can hold.
func collectStatusMap(l *layout, m map[string]string) *collector {
	c := newCollector(l, len(m))
	for key, owner := range m {
		addr, err := parseStatusKey(key, l.family())
		switch {
		case err != nil:
		case owner == MarkerExcluded:
			if !l.excludes(addr) {
				err = fmt.Errorf("spec does not exclude %s: %w", addr, ErrMarker)
			}
		case owner == MarkerReserved:
			if !l.reserves(addr) {
				err = fmt.Errorf("spec does not reserve %s: %w", addr, ErrMarker)
			}
		default:
			c.add(Allocation{addr, owner})
		}
		if err != nil {
			c.problems = append(c.problems, Problem{Entry: key, Addr: addr, Owner: owner, Err: err})
		}
	}
	return c
}

// parseStatusKey parses a status map's key, which must be an address in
// canonical form (netip.Addr.String) without a zone. The error wraps
// ErrInvalidAddr; the address is returned when it parsed. It allocates
// only to build an error.
func parseStatusKey(key string, f family) (netip.Addr, error) {
	if v, ok := parseDottedQuad(key); ok {
		return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), nil
	}
	host, _, zoned := strings.Cut(key, "%")
	if len(host) > maxAddrText {
		return netip.Addr{}, errTooLong("an IP address", key)
	}
	addr, err := netip.ParseAddr(host)
	var buf [64]byte
	switch {
	case err != nil:
		return netip.Addr{}, fmt.Errorf("%s: %w", parseReason(err, host), ErrInvalidAddr)
	case zoned:
		// The address, without its zone: the key is refused as a whole,
		// and a zone, which may be any length, is not kept.
		return addr, fmt.Errorf("has a zone: %w", ErrInvalidAddr)
	case addr.Is4In6():
		return addr, fmt.Errorf("%s: %w", mappedAdvice(addr, f), ErrInvalidAddr)
	case !addr.Is4() && string(addr.AppendTo(buf[:0])) != key: // an IPv4 address that parses is canonical
		return addr, fmt.Errorf("not canonical (want %q): %w", addr.String(), ErrInvalidAddr)
	}
	return addr, nil
}

// parseDottedQuad reads s if it is an IPv4 address in canonical form
// (what netip.Addr.String writes: four decimal fields up to 255, no
// leading zero), the form of almost every status-map key, in a fraction of
// netip.ParseAddr's time. Anything else is for netip.ParseAddr.
func parseDottedQuad(s string) (uint32, bool) {
	if len(s) < 7 || len(s) > 15 {
		return 0, false
	}
	var v uint32
	fields, field, digits := 0, uint32(0), 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '.' {
			if digits == 0 || field > 255 {
				return 0, false
			}
			v, fields, field, digits = v<<8|field, fields+1, 0, 0
			continue
		}
		c := s[i] - '0'
		if c > 9 || (digits > 0 && field == 0) || digits == 3 {
			return 0, false // not a digit, a leading zero, or four digits
		}
		field, digits = field*10+uint32(c), digits+1
	}
	return v, fields == 4
}

// excludes reports whether one of the spec's Exclude ranges holds a.
func (l *layout) excludes(a netip.Addr) bool {
	if o, ok := l.offset(a); ok {
		return l.inExclude(o) // the clipped ranges are exact inside [Start, End]
	}
	for _, r := range l.spec.Exclude {
		if r.Contains(a) {
			return true
		}
	}
	return false
}

// reserves reports whether a is one of the spec's Reserved addresses.
func (l *layout) reserves(a netip.Addr) bool {
	if o, ok := l.offset(a); ok {
		return l.inReserved(o)
	}
	return slices.Contains(l.spec.Reserved, a)
}
