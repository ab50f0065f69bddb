package ipam

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/vmnetkit/vmnetkit/internal/u128"
	"go4.org/netipx"
	"pgregory.net/rapid"
)

// testPrefixes are the prefixes the property tests draw from: every corner
// of both families, and a few ranges far larger than memory.
var testPrefixes = []string{
	"10.0.0.0/29", "10.0.0.8/30", "10.0.0.4/31", "10.0.0.9/32", "192.168.1.0/24",
	"2001:db8::/126", "2001:db8::/127", "2001:db8::5/128", "2001:db8::/120",
	"10.0.0.0/8", "0.0.0.0/0", "2001:db8::/64", "::/0",
	"10.0.0.0/8", "0.0.0.0/0", "2001:db8::/64", "::/0", // wide trees twice as often
}

// addrAt returns p's address at offset o from p's first address, clamped to
// p's last address.
func addrAt(p netip.Prefix, o u128.U128) netip.Addr {
	last := netipx.PrefixLastIP(p)
	base := u128.FromAddr(p.Addr())
	v := base.Add(o)
	if v.Less(base) || u128.FromAddr(last).Less(v) {
		return last
	}
	return v.Addr(p.Addr().Is4())
}

// genOffset draws an offset that is small, near a power of two or anything.
func genOffset(t *rapid.T, label string, bits int) u128.U128 {
	switch rapid.IntRange(0, 3).Draw(t, label+"-kind") {
	case 0, 1:
		return u128.From64(rapid.Uint64Range(0, 9).Draw(t, label))
	case 2:
		if bits == 0 {
			return u128.U128{}
		}
		sh := rapid.IntRange(0, bits-1).Draw(t, label+"-shift")
		v := u128.From64(1).Lsh(uint(sh)).Add64(rapid.Uint64Range(0, 3).Draw(t, label))
		if v.Lo < 2 && v.Hi == 0 {
			return u128.U128{}
		}
		return v.Sub64(2)
	}
	return u128.U128{Hi: rapid.Uint64().Draw(t, label+"-hi"), Lo: rapid.Uint64().Draw(t, label+"-lo")}.Rsh(uint(128 - bits))
}

// genSpec draws a valid Spec: a prefix from testPrefixes, maybe a Start and
// End, and a few Exclude ranges and Reserved addresses inside the prefix.
func genSpec(t *rapid.T) Spec {
	p := netip.MustParsePrefix(rapid.SampledFrom(testPrefixes).Draw(t, "prefix"))
	bits := p.Addr().BitLen() - p.Bits()
	ends := rapid.Bool().Draw(t, "subnet-ends")
	l, _ := compile(Spec{Prefix: p, AllocateSubnetEnds: ends})
	first, last := l.addr(u128.U128{}), l.addr(l.max)
	spec := Spec{
		Prefix:             p,
		Strategy:           rapid.SampledFrom([]Strategy{Lowest, Sequential}).Draw(t, "strategy"),
		Owners:             rapid.SampledFrom([]OwnerKind{AnyOwner, MACOwners}).Draw(t, "owners"),
		AllocateSubnetEnds: ends,
	}
	at := func(label string) netip.Addr { return notMapped(addrAt(p, genOffset(t, label, bits))) }
	usable := func(a netip.Addr) netip.Addr {
		if a.Less(first) {
			return first
		}
		if last.Less(a) {
			return last
		}
		return a
	}
	if rapid.Bool().Draw(t, "has-start") {
		spec.Start = usable(at("start"))
	}
	if rapid.Bool().Draw(t, "has-end") {
		spec.End = usable(at("end"))
	}
	if spec.Start.IsValid() && spec.End.IsValid() && spec.End.Less(spec.Start) {
		spec.Start, spec.End = spec.End, spec.Start
	}
	// Some exclusions are aligned on the tree's 64-address blocks relative to
	// the range's start, so whole subtrees are blocked without a leaf.
	start := first
	if spec.Start.IsValid() {
		start = spec.Start
	}
	for range rapid.IntRange(0, 2).Draw(t, "aligned-excludes") {
		unit := rapid.SampledFrom([]uint64{1, 64, 64, 4096}).Draw(t, "unit")
		from := addrAt(p, u128.FromAddr(start).Sub(u128.FromAddr(p.Addr())).Add64(unit*rapid.Uint64Range(0, 3).Draw(t, "aligned-from")))
		to := addrAt(p, u128.FromAddr(from).Sub(u128.FromAddr(p.Addr())).Add64(unit*rapid.Uint64Range(1, 3).Draw(t, "aligned-len")-1))
		spec.Exclude = append(spec.Exclude, rangeNotMapped(from, to))
	}
	for range rapid.IntRange(0, 3).Draw(t, "excludes") {
		from := at("exclude-from")
		to := addrAt(p, u128.FromAddr(from).Sub(u128.FromAddr(p.Addr())).Add(genOffset(t, "exclude-len", bits)))
		if to.Less(from) { // the offset wrapped
			to = netipx.PrefixLastIP(p)
		}
		spec.Exclude = append(spec.Exclude, rangeNotMapped(from, to))
	}
	for range rapid.IntRange(0, 3).Draw(t, "reserved") {
		spec.Reserved = append(spec.Reserved, at("reserved"))
	}
	return spec
}

// notMapped moves an IPv4-mapped address, which a Spec may not name, just
// past the mapped block (only ::/0 of testPrefixes holds such addresses).
func notMapped(a netip.Addr) netip.Addr {
	if a.Is4In6() {
		return netipx.PrefixLastIP(mappedBlock).Next()
	}
	return a
}

func rangeNotMapped(from, to netip.Addr) netipx.IPRange {
	from, to = notMapped(from), notMapped(to)
	if to.Less(from) {
		from, to = to, from
	}
	return netipx.IPRangeFrom(from, to)
}

// interesting returns addresses worth probing in a pool for spec: the ends
// of its range, the edges of its exclusions, its reservations.
func interesting(m *model) []netip.Addr {
	out := edges(m)
	for a := range m.addrs {
		out = append(out, a)
	}
	return out
}

// edges is interesting without the allocated addresses.
func edges(m *model) []netip.Addr {
	out := []netip.Addr{m.start, m.start.Next(), m.end, m.end.Prev(), m.start.Prev(), m.end.Next(), m.spec.Prefix.Addr()}
	for _, r := range m.spec.Exclude {
		out = append(out, r.From().Prev(), r.From(), r.To(), r.To().Next())
	}
	out = append(out, m.spec.Reserved...)
	if m.start.Is4() {
		out = append(out, netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("::ffff:10.0.0.1"))
	} else {
		out = append(out, netip.MustParseAddr("10.0.0.1"), m.start.WithZone("eth0"))
	}
	valid := out[:0]
	for _, a := range out {
		if a.IsValid() {
			valid = append(valid, a)
		}
	}
	return valid
}

// genAddr draws an address to act on: mostly an interesting one, sometimes
// a free one near the start, sometimes anything in the prefix.
func genAddr(t *rapid.T, m *model) netip.Addr {
	switch rapid.IntRange(0, 5).Draw(t, "addr-kind") {
	case 0:
		if a, ok := m.next(); ok {
			return a
		}
	case 1:
		bits := m.spec.Prefix.Addr().BitLen() - m.spec.Prefix.Bits()
		return addrAt(m.spec.Prefix, genOffset(t, "addr", bits))
	}
	cands := interesting(m)
	slicesSortAddrs(cands)
	return rapid.SampledFrom(cands).Draw(t, "addr")
}

func slicesSortAddrs(a []netip.Addr) {
	// Map iteration put allocated addresses in random order; rapid needs a
	// deterministic choice list to shrink.
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j].Less(a[j-1]); j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// testOwners are the owners of AnyOwner pools: a few names, and ones that
// every pool refuses.
var testOwners = []string{"a", "b", "c", "d", "e", "f", "g", "h", "", MarkerExcluded, "vm-\xff", "vm-\xfe"}

// testMACOwners are the owners of MACOwners pools, each with the form the
// pool stores it in ("": refused).
var testMACOwners = map[string]string{
	"52:54:00:00:00:01":       "52:54:00:00:00:01",
	"52-54-00-00-00-01":       "52:54:00:00:00:01",
	"5254.0000.0001":          "52:54:00:00:00:01",
	"525400000001":            "52:54:00:00:00:01",
	"52:54:00:AA:00:02":       "52:54:00:aa:00:02",
	"52-54-00-aa-00-02":       "52:54:00:aa:00:02",
	"52:54:00:00:00:03":       "52:54:00:00:00:03",
	"02:00:00:00:00:04":       "02:00:00:00:00:04",
	"a":                       "",
	"":                        "",
	MarkerReserved:            "",
	"52:54:00:00:00:0\xff":    "",
	"01:02:03:04:05:06:07:08": "",
}

// genOwner draws an owner for m's pool.
func genOwner(t *rapid.T, m *model) string {
	if m.spec.Owners == MACOwners {
		return rapid.SampledFrom(slices.Sorted(maps.Keys(testMACOwners))).Draw(t, "owner")
	}
	return rapid.SampledFrom(testOwners).Draw(t, "owner")
}

// freshOwner returns the n-th new owner for m's pool, spelled in turn in
// each form the pool's OwnerKind accepts.
func freshOwner(m *model, n int) string {
	if m.spec.Owners != MACOwners {
		return fmt.Sprintf("n%d", n)
	}
	canon := fmt.Sprintf("02:00:00:%02x:%02x:%02x", byte(n>>16), byte(n>>8), byte(n))
	spelled := [...]string{
		canon,
		strings.ToUpper(strings.ReplaceAll(canon, ":", "-")),
		strings.ReplaceAll(canon, ":", ""),
	}[n%3]
	m.aliases[spelled] = canon
	return spelled
}
