package ipam

import (
	"cmp"
	"errors"
	"maps"
	"math/big"
	"net/netip"
	"slices"
	"unicode/utf8"

	"go4.org/netipx"

	"github.com/vmnetkit/vmnetkit/internal/netiptest"
)

// model is the obviously correct pool the state-machine test compares Pool
// with: a map of allocations and linear scans over the Spec as written.
type model struct {
	spec        Spec
	start, end  netip.Addr
	owners      map[string]netip.Addr
	addrs       map[netip.Addr]string
	cursor      netip.Addr // Sequential: where the next search starts
	hasLastAddr bool
	aliases     map[string]string // MACOwners: each spelling's stored form
}

func newModel(spec Spec) *model {
	start, end := spec.Start, spec.End
	p := spec.Prefix
	first, last := p.Addr(), netipx.PrefixLastIP(p)
	host := p.Addr().BitLen() - p.Bits()
	if host >= 2 && !spec.AllocateSubnetEnds {
		first = first.Next()
		if p.Addr().Is4() {
			last = last.Prev()
		}
	}
	if !p.Addr().Is4() && mappedBlock.Contains(last) {
		last = mappedBlock.Addr().Prev()
	}
	if !start.IsValid() {
		start = first
	}
	if !end.IsValid() {
		end = last
	}
	return &model{
		spec: spec, start: start, end: end, cursor: start,
		owners: map[string]netip.Addr{}, addrs: map[netip.Addr]string{},
		aliases: maps.Clone(testMACOwners),
	}
}

// mappedBlock holds the IPv4-mapped IPv6 addresses, never usable.
var mappedBlock = netip.MustParsePrefix("::ffff:0:0/96")

func (m *model) inRange(a netip.Addr) bool {
	return a.IsValid() && a.Zone() == "" && a.Is4() == m.start.Is4() && !a.Is4In6() &&
		m.start.Compare(a) <= 0 && a.Compare(m.end) <= 0
}

// why returns the sentinel Check must return for a.
func (m *model) why(a netip.Addr) error {
	switch {
	case !m.inRange(a):
		return ErrOutOfRange
	case slices.Contains(m.spec.Reserved, a):
		return ErrReserved
	}
	for _, r := range m.spec.Exclude {
		if r.Contains(a) {
			return ErrExcluded
		}
	}
	return nil
}

// nextFree returns the lowest free address in [from, end].
func (m *model) nextFree(from netip.Addr) (netip.Addr, bool) {
	for a := from; a.IsValid() && a.Compare(m.end) <= 0; {
		if a.Is4In6() {
			a = netipx.PrefixLastIP(mappedBlock).Next()
			continue
		}
		if r, ok := m.excludedBy(a); ok {
			a = r.To().Next()
			continue
		}
		if _, held := m.addrs[a]; !held && !slices.Contains(m.spec.Reserved, a) {
			return a, true
		}
		a = a.Next()
	}
	return netip.Addr{}, false
}

func (m *model) excludedBy(a netip.Addr) (netipx.IPRange, bool) {
	for _, r := range m.spec.Exclude {
		if r.Contains(a) {
			return r, true
		}
	}
	return netipx.IPRange{}, false
}

// next returns the address Allocate would hand out to a new owner.
func (m *model) next() (netip.Addr, bool) {
	if m.spec.Strategy == Sequential {
		if a, ok := m.nextFree(m.cursor); ok {
			return a, true
		}
	}
	return m.nextFree(m.start)
}

func (m *model) take(a netip.Addr, owner string) {
	m.addrs[a] = owner
	m.owners[owner] = a
}

func (m *model) allocate(owner string) (netip.Addr, error) {
	owner, valid := m.canonical(owner)
	if a, ok := m.owners[owner]; ok && valid {
		return a, nil
	}
	if !valid {
		return netip.Addr{}, ErrInvalidOwner
	}
	a, ok := m.next()
	if !ok {
		return netip.Addr{}, ErrExhausted
	}
	m.take(a, owner)
	m.cursor = a.Next()
	if a == m.end {
		m.cursor = m.start
	}
	return a, nil
}

// canonical returns the form in which the pool stores owner, and whether
// the pool takes it at all: the AnyOwner rule written out, or the MAC
// spellings the test knows.
func (m *model) canonical(owner string) (string, bool) {
	if m.spec.Owners == MACOwners {
		c := m.aliases[owner]
		return c, c != ""
	}
	return owner, owner != "" && owner != MarkerExcluded && owner != MarkerReserved && utf8.ValidString(owner)
}

func (m *model) allocateAddr(a netip.Addr, owner string) error {
	owner, valid := m.canonical(owner)
	if !valid {
		return ErrInvalidOwner
	}
	if err := m.why(a); err != nil {
		return err
	}
	if held, ok := m.owners[owner]; ok {
		if held == a {
			return nil
		}
		return ErrOwnerHasAddr
	}
	if _, ok := m.addrs[a]; ok {
		return ErrInUse
	}
	m.take(a, owner)
	return nil
}

func (m *model) release(a netip.Addr) (string, error) {
	owner, ok := m.addrs[a]
	if !ok {
		return "", ErrNotAllocated
	}
	delete(m.addrs, a)
	delete(m.owners, owner)
	return owner, nil
}

// restored moves the cursor as Restore does: after the highest allocation.
func (m *model) restored() {
	var hi netip.Addr
	for a := range m.addrs {
		if a.Compare(hi) > 0 {
			hi = a
		}
	}
	m.cursor = m.start
	if hi.IsValid() && hi != m.end {
		m.cursor = hi.Next()
	}
}

func (m *model) allocations() []Allocation {
	var out []Allocation
	for a, o := range m.addrs {
		out = append(out, Allocation{a, o})
	}
	slices.SortFunc(out, func(x, y Allocation) int { return x.Addr.Compare(y.Addr) })
	return out
}

// stats computes the counts with netipx's IPSet and math/big, independently
// of the pool's offset arithmetic.
func (m *model) stats() [5]string {
	var wb netipx.IPSetBuilder
	wb.AddRange(netipx.IPRangeFrom(m.start, m.end))
	wb.RemovePrefix(mappedBlock)
	window, _ := wb.IPSet()
	var eb, rb netipx.IPSetBuilder
	for _, r := range m.spec.Exclude {
		eb.AddRange(r)
	}
	for _, a := range m.spec.Reserved {
		rb.Add(a)
		eb.Remove(a)
	}
	eb.Intersect(window)
	rb.Intersect(window)
	ex, _ := eb.IPSet()
	rs, _ := rb.IPSet()
	size := new(big.Int)
	for _, r := range window.Ranges() {
		size.Add(size, netiptest.RangeSize(r))
	}
	alloc := big.NewInt(int64(len(m.addrs)))
	excl, res := new(big.Int), new(big.Int)
	for _, r := range ex.Ranges() {
		excl.Add(excl, netiptest.RangeSize(r))
	}
	for _, r := range rs.Ranges() {
		res.Add(res, netiptest.RangeSize(r))
	}
	free := new(big.Int).Sub(size, alloc)
	free.Sub(free, excl).Sub(free, res)
	return [5]string{size.String(), alloc.String(), excl.String(), res.String(), free.String()}
}

func statsStrings(s Stats) [5]string {
	return [5]string{s.Size.String(), s.Allocated.String(), s.Excluded.String(), s.Reserved.String(), s.Free.String()}
}

// sentinel returns the first of the package's sentinels err wraps.
func sentinel(err error) error {
	for _, s := range []error{ErrInvalidSpec, ErrExhausted, ErrInUse, ErrOutOfRange, ErrExcluded, ErrReserved, ErrNotAllocated, ErrOwnerHasAddr, ErrInvalidOwner, ErrInvalidAddr, ErrMarker} {
		if errors.Is(err, s) {
			return s
		}
	}
	return err
}

func cmpAlloc(a, b Allocation) int {
	return cmp.Or(a.Addr.Compare(b.Addr), cmp.Compare(a.Owner, b.Owner))
}
