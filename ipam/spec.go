package ipam

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"

	"github.com/vmnetkit/vmnetkit/internal/u128"
	"go4.org/netipx"
)

// Spec describes a pool: the prefix it allocates from, the optional range
// that narrows it, and the addresses it never hands out. The zero Spec is
// invalid (it has no prefix).
//
// The usable addresses of a prefix exclude the IPv4 network and broadcast
// addresses, except in a /31 or /32 (RFC 3021), and the IPv6 subnet-router
// anycast address (the prefix's first address), except in a /127 or /128
// (RFC 6164). IPv4-mapped IPv6 addresses (::ffff:0:0/96) are never usable:
// they name IPv4 addresses (RFC 4291), so a Spec that names one is invalid
// and an IPv6 pool whose range spans them skips them, outside Size like a
// network address (only a prefix that contains ::ffff:0:0/96 can span
// them: ::/80 and shorter, or one of ::8000:0:0/81 to ::fffe:0:0/95).
// AllocateSubnetEnds makes those subnet ends usable too, for pools that
// hand out every address of the prefix (Cluster API's in-cluster IPAM
// provider's allocateReservedIPAddresses). Exclude ranges and Reserved
// addresses must lie inside the prefix; the parts of them outside
// [Start, End] are ignored. An Exclude range may end in the IPv4-mapped
// block only when it is a prefix that starts below it (::/80 ends at
// ::ffff:ffff:ffff): the ranges a Spec accepts are those ParseRange reads
// back from FormatRange.
type Spec struct {
	Prefix   netip.Prefix     // required, canonical (masked); its family is the pool's
	Start    netip.Addr       // optional first allocatable address (zero: the first usable address)
	End      netip.Addr       // optional last allocatable address (zero: the last usable address)
	Exclude  []netipx.IPRange // never allocated; counted as excluded
	Reserved []netip.Addr     // never allocated; counted as reserved (server, router)
	Strategy Strategy         // Lowest (zero value) or Sequential
	Owners   OwnerKind        // AnyOwner (zero value) or MACOwners

	// AllocateSubnetEnds also hands out the IPv4 network and broadcast
	// addresses and the IPv6 subnet-router anycast address (false, the zero
	// value: they are not usable, except in a /31, /32, /127 or /128).
	AllocateSubnetEnds bool
}

// Validate reports whether s describes a pool: nil, or a *FieldError
// (wrapping ErrInvalidSpec) that names the first offending field as
// SpecText names it, with its index in Exclude or Reserved, and quotes the
// value. It builds error text only for an invalid Spec. The Prefix must be valid
// and canonical (Prefix == Prefix.Masked()); Start and End, when set, must be
// usable addresses of the prefix's family without a zone, Start not after
// End; every Exclude range must be valid and inside the prefix; every
// Reserved address must be inside the prefix, without a zone; no address
// may be IPv4-mapped IPv6; Strategy must be Lowest or Sequential, Owners
// AnyOwner or MACOwners.
func (s Spec) Validate() error {
	_, err := compile(s)
	return err
}

// clone returns s with its slices copied.
func (s Spec) clone() Spec {
	s.Exclude = slices.Clone(s.Exclude)
	s.Reserved = slices.Clone(s.Reserved)
	return s
}

// span is an inclusive range of offsets.
type span struct{ lo, hi u128.U128 }

// layout is a validated Spec in offset space: offset 0 is the first
// allocatable address (Start), offset max the last (End).
type layout struct {
	spec     Spec // a private copy
	is4      bool
	first    u128.U128 // Start as an integer
	max      u128.U128 // End - Start
	exclude  []span    // merged Exclude ranges clipped to [0, max], ascending
	reserved []u128.U128
	blocked  []span // exclude and reserved merged, ascending
	excluded u128.U128
	unusable []span // the IPv4-mapped block clipped to [0, max]: at most one span
	levels   uint   // height of the offset tree: 6*levels bits cover max
}

// The IPv4-mapped IPv6 block ::ffff:0:0/96 as integers.
var (
	mappedLo = u128.From64(0xffff << 32)
	mappedHi = u128.From64(1<<48 - 1)
)

// fieldErr returns the error of Spec.Validate about one value of a Spec: a
// *FieldError that names the field as SpecText does (with i, its index in
// Exclude or Reserved, when not -1) and quotes the value. compile calls it
// only for a value that is wrong, so a valid Spec builds no error text.
func fieldErr(field string, i int, value, format string, args ...any) error {
	if i >= 0 {
		field += "[" + strconv.Itoa(i) + "]"
	}
	return &FieldError{Field: field, Value: value, Err: fmt.Errorf(format, args...)}
}

// usableRange returns the first and last usable addresses of p as integers.
func usableRange(p netip.Prefix) (first, last u128.U128) {
	bitLen := p.Addr().BitLen()
	host := uint(bitLen - p.Bits())
	first = u128.FromAddr(p.Addr())
	last = first.Add(u128.From64(1).Lsh(host).Sub64(1))
	if host == 128 {
		last = u128.Max
	}
	switch {
	case bitLen == 32 && host >= 2:
		first, last = first.Add64(1), last.Sub64(1)
	case bitLen == 128 && host >= 2:
		first = first.Add64(1)
	}
	return first, last
}

func compile(s Spec) (*layout, error) {
	p := s.Prefix
	if !p.IsValid() {
		return nil, fieldErr("cidr", -1, p.String(), "not a valid prefix")
	}
	if p != p.Masked() {
		return nil, fieldErr("cidr", -1, p.String(), "not canonical (want %s)", p.Masked())
	}
	if p.Addr().Is4In6() {
		return nil, fieldErr("cidr", -1, p.String(), "%s", mappedPrefixAdvice(p, anyFamily))
	}
	if s.Strategy != Lowest && s.Strategy != Sequential {
		return nil, fieldErr("strategy", -1, s.Strategy.String(), "want Lowest or Sequential")
	}
	if s.Owners != AnyOwner && s.Owners != MACOwners {
		return nil, fieldErr("owners", -1, s.Owners.String(), "want Any or MAC")
	}
	is4 := p.Addr().Is4()
	fam := familyOf(p)
	first, last := usableRange(p)
	if s.AllocateSubnetEnds {
		first, last = u128.FromAddr(p.Addr()), u128.FromAddr(netipx.PrefixLastIP(p))
	}
	if !is4 && !last.Less(mappedLo) && !mappedHi.Less(last) {
		last = mappedLo.Sub64(1) // ::/80 to ::fffe:0:0/95 end in the mapped block
	}
	// in returns why a is not an address of the prefix, or "". It builds
	// text only for an address that is not.
	in := func(a netip.Addr) string {
		switch {
		case !a.IsValid():
			return "not valid"
		case a.Zone() != "":
			return "has a zone"
		case a.Is4In6():
			return mappedAdvice(a, fam)
		case a.Is4() != is4:
			return "not of the family of prefix " + p.String()
		case !p.Contains(a):
			return "outside prefix " + p.String()
		}
		return ""
	}
	usable := func(field string, a netip.Addr) (u128.U128, error) {
		if why := in(a); why != "" {
			return u128.U128{}, fieldErr(field, -1, a.String(), "%s", why)
		}
		v := u128.FromAddr(a)
		if v.Less(first) || last.Less(v) {
			return u128.U128{}, fieldErr(field, -1, a.String(), "not a usable address of prefix %s", p)
		}
		return v, nil
	}
	lo, hi := first, last
	var err error
	if s.Start.IsValid() || s.Start.Zone() != "" {
		if lo, err = usable("start", s.Start); err != nil {
			return nil, err
		}
	}
	if s.End.IsValid() || s.End.Zone() != "" {
		if hi, err = usable("end", s.End); err != nil {
			return nil, err
		}
	}
	if hi.Less(lo) {
		return nil, fieldErr("start", -1, lo.Addr(is4).String(), "after end %q", hi.Addr(is4).String())
	}
	l := &layout{spec: s.clone(), is4: is4, first: lo, max: hi.Sub(lo)}

	// clip converts [a, b] (integers) to offsets inside [0, max].
	clip := func(a, b u128.U128) (span, bool) {
		if b.Less(lo) || hi.Less(a) {
			return span{}, false
		}
		if a.Less(lo) {
			a = lo
		}
		if hi.Less(b) {
			b = hi
		}
		return span{a.Sub(lo), b.Sub(lo)}, true
	}
	for i, r := range s.Exclude {
		if !r.IsValid() {
			return nil, fieldErr("exclude", i, r.String(), "not a valid range")
		}
		if why := excludeEnds(r, in, fam); why != "" {
			return nil, fieldErr("exclude", i, FormatRange(r), "%s", why)
		}
		if sp, ok := clip(u128.FromAddr(r.From()), u128.FromAddr(r.To())); ok {
			l.exclude = append(l.exclude, sp)
		}
	}
	for i, a := range s.Reserved {
		if why := in(a); why != "" {
			return nil, fieldErr("reserved", i, a.String(), "%s", why)
		}
		v := u128.FromAddr(a)
		if sp, ok := clip(v, v); ok {
			l.reserved = append(l.reserved, sp.lo)
		}
	}
	slices.SortFunc(l.reserved, u128.U128.Cmp)
	l.reserved = slices.Compact(l.reserved)
	l.exclude = mergeSpans(l.exclude)
	if sp, ok := clip(mappedLo, mappedHi); ok && !is4 {
		l.unusable = []span{sp}
		l.exclude = cutSpan(l.exclude, sp) // unusable, so not counted as excluded
	}
	for _, sp := range l.exclude {
		l.excluded = l.excluded.Add(sp.hi.Sub(sp.lo).Add64(1))
	}
	blocked := slices.Clone(l.exclude)
	for _, r := range l.reserved {
		if l.inExclude(r) {
			l.excluded = l.excluded.Sub64(1) // reserved wins
		} else {
			blocked = append(blocked, span{r, r})
		}
	}
	l.blocked = mergeSpans(append(blocked, l.unusable...))
	l.levels = max(1, uint(l.max.BitLen()+5)/6)
	return l, nil
}

// excludeEnds returns why the ends of the valid range r are not those of
// an Exclude range of a pool of family fam, whose rule for one address is
// in, or "". An end may be IPv4-mapped in just one case: r is a prefix
// that holds the whole mapped block and starts below it (::/80 ends at
// ::ffff:ffff:ffff), which ParseRange reads and FormatRange writes, and
// whose mapped part the pool skips anyway. Any other range that ends in
// the block is refused, with the range to write instead.
func excludeEnds(r netipx.IPRange, in func(netip.Addr) string, fam family) string {
	from, to := r.From(), r.To()
	if why := in(from); why != "" {
		if from.Is4In6() && fam == family6 && mappedHi.Less(u128.FromAddr(to)) {
			return "from " + from.String() + ": " + why + "; start the range at ::1:0:0:0"
		}
		return "from " + from.String() + ": " + why
	}
	if to.Is4In6() && fam == family6 {
		if _, isPrefix := r.Prefix(); isPrefix {
			return ""
		}
	}
	if why := in(to); why != "" {
		if to.Is4In6() && fam == family6 && u128.FromAddr(from).Less(mappedLo) {
			return "to " + to.String() + ": " + why + "; end the range at ::fffe:ffff:ffff"
		}
		return "to " + to.String() + ": " + why
	}
	return ""
}

// mergeSpans sorts spans and merges overlapping or adjacent ones.
func mergeSpans(s []span) []span {
	slices.SortFunc(s, func(a, b span) int { return a.lo.Cmp(b.lo) })
	out := s[:0]
	for _, sp := range s {
		if n := len(out); n > 0 {
			last := &out[n-1]
			if last.hi == u128.Max || !last.hi.Add64(1).Less(sp.lo) {
				if last.hi.Less(sp.hi) {
					last.hi = sp.hi
				}
				continue
			}
		}
		out = append(out, sp)
	}
	return out
}

// cutSpan removes the offsets of cut from the ascending, disjoint spans s.
func cutSpan(s []span, cut span) []span {
	var out []span
	for _, sp := range s {
		if sp.hi.Less(cut.lo) || cut.hi.Less(sp.lo) {
			out = append(out, sp)
			continue
		}
		if sp.lo.Less(cut.lo) {
			out = append(out, span{sp.lo, cut.lo.Sub64(1)})
		}
		if cut.hi.Less(sp.hi) {
			out = append(out, span{cut.hi.Add64(1), sp.hi})
		}
	}
	return out
}

// size returns the number of usable addresses in [Start, End].
func (l *layout) size() u128.U128 {
	n := l.max.Add64(1)
	for _, sp := range l.unusable {
		n = n.Sub(sp.hi.Sub(sp.lo).Add64(1))
	}
	return n
}

// inUnusable reports whether offset o is an IPv4-mapped address.
func (l *layout) inUnusable(o u128.U128) bool {
	return len(l.unusable) > 0 && !o.Less(l.unusable[0].lo) && !l.unusable[0].hi.Less(o)
}

// inExclude reports whether offset o is in an Exclude range.
func (l *layout) inExclude(o u128.U128) bool {
	i, found := slices.BinarySearchFunc(l.exclude, o, func(sp span, o u128.U128) int { return sp.lo.Cmp(o) })
	if found {
		return true
	}
	return i > 0 && !l.exclude[i-1].hi.Less(o)
}

// inReserved reports whether offset o is a Reserved address.
func (l *layout) inReserved(o u128.U128) bool {
	_, found := slices.BinarySearchFunc(l.reserved, o, u128.U128.Cmp)
	return found
}

// offset returns a's offset, if a is in [Start, End]. It does not allocate.
func (l *layout) offset(a netip.Addr) (u128.U128, bool) {
	if !a.IsValid() || a.Zone() != "" || a.Is4() != l.is4 {
		return u128.U128{}, false
	}
	o := u128.FromAddr(a).Sub(l.first)
	return o, !l.max.Less(o)
}

// check returns a's offset, or the reason a can never be allocated: an
// error wrapping ErrOutOfRange, ErrReserved or ErrExcluded. It allocates
// only to build an error.
func (l *layout) check(a netip.Addr) (u128.U128, error) {
	o, ok := l.offset(a)
	switch {
	case !ok && a.Is4In6():
		return o, fmt.Errorf("%s: %w", mappedAdvice(a, l.family()), ErrOutOfRange)
	case !ok && (!a.IsValid() || a.Zone() != "" || a.Is4() != l.is4):
		return o, fmt.Errorf("not an address of %s: %w", l.spec.Prefix, ErrOutOfRange)
	case !ok:
		return o, fmt.Errorf("outside %s: %w", l.rangeString(), ErrOutOfRange)
	case l.inUnusable(o):
		return o, fmt.Errorf("%s: %w", mappedAdvice(a, family6), ErrOutOfRange)
	case l.inReserved(o):
		return o, ErrReserved
	case l.inExclude(o):
		return o, ErrExcluded
	}
	return o, nil
}

// family returns the family of l's pool.
func (l *layout) family() family {
	if l.is4 {
		return family4
	}
	return family6
}

func (l *layout) addr(o u128.U128) netip.Addr { return l.first.Add(o).Addr(l.is4) }

func (l *layout) rangeString() string {
	return l.addr(u128.U128{}).String() + "-" + l.addr(l.max).String()
}
