package leasestore_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"
	"time"

	"go4.org/netipx"
	"pgregory.net/rapid"

	"github.com/vmnetkit/vmnetkit/internal/netiptest"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// smSpec is a small pool so that random edits collide often: usable
// addresses 10.0.0.2-10.0.0.30 without 10.0.0.20-10.0.0.22.
var smSpec = ipam.Spec{
	Prefix:   netip.MustParsePrefix("10.0.0.0/27"),
	Exclude:  []netipx.IPRange{netipx.MustParseIPRange("10.0.0.20-10.0.0.22")},
	Reserved: []netip.Addr{netip.MustParseAddr("10.0.0.1")},
}

// smUsable is smSpec's rule, written out.
func smUsable(a netip.Addr) bool {
	if !a.Is4() || a.Zone() != "" || !smSpec.Prefix.Contains(a) {
		return false
	}
	last := a.As4()[3]
	return last >= 2 && last <= 30 && (last < 20 || last > 22)
}

// smOptions are the option sets the machine switches between, each with
// what Build keeps of it.
var smOptions = []struct{ given, kept leasestore.Options }{
	{opts4, opts4},
	{
		leasestore.Options{DNS: netiptest.Addrs("10.0.0.2", "10.0.0.3"), LeaseTime: 10 * time.Minute, DomainSearch: []string{"lab.example"}},
		leasestore.Options{DNS: netiptest.Addrs("10.0.0.2", "10.0.0.3"), LeaseTime: 10 * time.Minute, DomainSearch: []string{"lab.example"}},
	},
	{ // invalid values are dropped
		leasestore.Options{Router: netip.MustParseAddr("fd00::1"), DNS: netiptest.Addrs("fd00::53", "10.0.0.3"), LeaseTime: time.Millisecond},
		leasestore.Options{DNS: netiptest.Addrs("10.0.0.3")},
	},
}

// smFamily is a pool the machine runs on, of either family: smSpec, or
// an IPv6 /64 with the same usable addresses at the same offsets, from
// the prefix's first address (offsets that pack with any MAC) or from
// 2^64-256 (offsets too large for a packed key: the wide table).
type smFamily struct {
	name    string
	spec    ipam.Spec
	at      func(last byte) netip.Addr // the address at offset last, like 10.0.0.<last>
	other   netip.Addr                 // an address of the other family
	options []struct{ given, kept leasestore.Options }
}

// usable is f's rule, written out: offsets 2 to 30 without 20 to 22.
func (f smFamily) usable(a netip.Addr) bool {
	if f.spec.Prefix.Addr().Is4() {
		return smUsable(a)
	}
	for last := 2; last <= 30; last++ {
		if a == f.at(byte(last)) {
			return last < 20 || last > 22
		}
	}
	return false
}

// smOptions6 are the option sets of the IPv6 machines.
var smOptions6 = []struct{ given, kept leasestore.Options }{
	{
		leasestore.Options{DNS: netiptest.Addrs("fd00::53", "fd00::54"), PreferredLifetime: 10 * time.Minute, ValidLifetime: time.Hour, DomainSearch: []string{"lab.example"}},
		leasestore.Options{DNS: netiptest.Addrs("fd00::53", "fd00::54"), PreferredLifetime: 10 * time.Minute, ValidLifetime: time.Hour, DomainSearch: []string{"lab.example"}},
	},
	{ // a preferred lifetime longer than the lease time is dropped
		leasestore.Options{DNS: netiptest.Addrs("fd00::53"), LeaseTime: time.Hour, PreferredLifetime: 2 * time.Hour},
		leasestore.Options{DNS: netiptest.Addrs("fd00::53"), LeaseTime: time.Hour},
	},
	{ // the DHCPv4-only options and the other family are dropped
		leasestore.Options{Router: netip.MustParseAddr("fd00::1"), NTP: netiptest.Addrs("fd00::123"), DomainName: "lab.example", DNS: netiptest.Addrs("10.0.0.3", "fd00::53")},
		leasestore.Options{DNS: netiptest.Addrs("fd00::53")},
	},
}

func v6Family(name string, base netip.Addr) smFamily {
	at := func(last byte) netip.Addr {
		b := base.As16()
		b[15] = last
		return netip.AddrFrom16(b)
	}
	return smFamily{
		name: name,
		spec: ipam.Spec{
			Prefix:   netip.MustParsePrefix("fd00::/64"),
			Start:    at(1),
			End:      at(30),
			Exclude:  []netipx.IPRange{netipx.IPRangeFrom(at(20), at(22))},
			Reserved: []netip.Addr{at(1)},
		},
		at:      at,
		other:   netip.MustParseAddr("10.0.0.5"),
		options: smOptions6,
	}
}

var smFamilies = []smFamily{
	{
		name:    "ipv4",
		spec:    smSpec,
		at:      func(last byte) netip.Addr { return netip.AddrFrom4([4]byte{10, 0, 0, last}) },
		other:   netip.MustParseAddr("fd00::5"),
		options: smOptions,
	},
	v6Family("ipv6-low", netip.MustParseAddr("fd00::")),
	v6Family("ipv6-high", netip.MustParseAddr("fd00::ffff:ffff:ffff:ff00")),
}

type machine struct {
	f        smFamily
	allocs   []ipam.Allocation
	opts     int // index into smOptions
	prev     *leasestore.Store
	prevWant map[leasestore.MAC]netip.Addr
	prevOpts int
}

// genMAC returns one of twelve MACs: ten under one OUI, which pack into
// a key with any address of the pool, and two under others, which widen
// the packing or (with few key bits) make the table wide.
func (m *machine) genMAC(t *rapid.T) leasestore.MAC {
	switch i := rapid.IntRange(0, 11).Draw(t, "mac"); i {
	case 10:
		return leasestore.MustParseMAC("52:54:01:00:00:0a")
	case 11:
		return leasestore.MustParseMAC("02:54:00:00:00:0b")
	default:
		return leasestore.MustParseMAC(fmt.Sprintf("52:54:00:00:00:%02x", i))
	}
}

func (m *machine) genAddr(t *rapid.T) netip.Addr {
	return m.f.at(byte(rapid.IntRange(2, 30).Draw(t, "addr")))
}

func (m *machine) genOwner(t *rapid.T) string {
	return spell(m.genMAC(t), rapid.IntRange(0, 3).Draw(t, "spelling"))
}

// step builds the store of the current snapshot (from a shuffled copy too),
// checks it against the model, diffs it against the previous store and
// checks the plan.
//
// Each step builds its tables with a random key width: 64 (as in use), 28
// (the OUI's MACs pack with addresses up to 10.0.0.15; other MACs or
// higher addresses switch to the wide form while Build runs) or 0 (always
// wide), so Diff and Apply also meet every pair of forms.
func (m *machine) step(t *rapid.T) {
	defer leasestore.SetPackBits(rapid.SampledFrom([]uint{64, 28, 0}).Draw(t, "pack bits"))()
	want := modelTable(m.allocs, m.f.usable)
	opts := m.f.options[m.opts]

	s, problems := leasestore.Build(ipam.Snapshot{Spec: m.f.spec, Allocations: m.allocs}, opts.given)
	checkStore(t, s, want, &opts.kept)

	shuffled := slices.Clone(m.allocs)
	rand.New(rand.NewPCG(uint64(len(shuffled)), rapid.Uint64().Draw(t, "shuffle"))).Shuffle(len(shuffled), func(i, j int) {
		shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
	})
	s2, problems2 := leasestore.Build(ipam.Snapshot{Spec: m.f.spec, Allocations: shuffled}, opts.given)
	if got, want := fmt.Sprint(table(s2), problems2), fmt.Sprint(table(s), problems); got != want {
		t.Fatalf("Build depends on the order of the allocations:\n%s\n%s", want, got)
	}

	// Every allocation is served or reported, never both, never twice.
	optionProblems := 0
	for _, p := range problems {
		if errors.Is(p, leasestore.ErrInvalidOptions) {
			optionProblems++
		}
	}
	if got := len(problems) - optionProblems; got != len(m.allocs)-s.Len() {
		t.Fatalf("%d allocations, %d leases, %d problems: %v", len(m.allocs), s.Len(), got, problems)
	}
	if !slices.IsSortedFunc(problems, func(a, b leasestore.Problem) int { return a.Addr.Compare(b.Addr) }) {
		t.Fatalf("problems not sorted by address: %v", problems)
	}

	p := leasestore.Diff(m.prev, s)
	applied := p.Apply(m.prev)
	if got, want := fmt.Sprint(leases(applied)), fmt.Sprint(leases(s)); got != want {
		t.Fatalf("Plan.Apply(old) != new:\n got %s\nwant %s", got, want)
	}
	checkStore(t, applied, want, &opts.kept)
	if !leasestore.Diff(s, s).Empty() {
		t.Fatalf("Diff(s, s) is not empty")
	}
	changed := m.prev != nil && m.prev.Len() > 0 && !m.f.options[m.prevOpts].kept.Equal(&opts.kept)
	wantAdd, wantRemove, wantUpdate := modelPlan(m.prevWant, want, changed)
	macs := func(ls []leasestore.Lease) []leasestore.MAC {
		var out []leasestore.MAC
		for _, l := range ls {
			out = append(out, l.MAC)
		}
		return out
	}
	var gotUpdate []leasestore.MAC
	for _, c := range p.Update {
		if c.Old.MAC != c.New.MAC {
			t.Fatalf("update changes the MAC: %v -> %v", c.Old, c.New)
		}
		gotUpdate = append(gotUpdate, c.New.MAC)
	}
	if fmt.Sprint(macs(p.Add), macs(p.Remove), gotUpdate) != fmt.Sprint(wantAdd, wantRemove, wantUpdate) {
		t.Fatalf("plan add %v remove %v update %v; model add %v remove %v update %v",
			macs(p.Add), macs(p.Remove), gotUpdate, wantAdd, wantRemove, wantUpdate)
	}
	m.prev, m.prevWant, m.prevOpts = s, want, m.opts
}

// TestStoreMatchesModel: random sequences of snapshot edits, each followed
// by Build and Diff against the previous store, in an IPv4 pool or an
// IPv6 /64 (smFamilies).
func TestStoreMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := &machine{f: smFamilies[rapid.IntRange(0, len(smFamilies)-1).Draw(t, "family (ipv4, ipv6-low, ipv6-high)")]}
		pick := func(t *rapid.T) int { return rapid.IntRange(0, len(m.allocs)-1).Draw(t, "entry") }
		t.Repeat(map[string]func(*rapid.T){
			"allocate": func(t *rapid.T) {
				m.allocs = append(m.allocs, ipam.Allocation{Addr: m.genAddr(t), Owner: m.genOwner(t)})
				m.step(t)
			},
			"release": func(t *rapid.T) {
				if len(m.allocs) == 0 {
					t.Skip("nothing to release")
				}
				i := pick(t)
				m.allocs = slices.Delete(m.allocs, i, i+1)
				m.step(t)
			},
			"change a MAC": func(t *rapid.T) {
				if len(m.allocs) == 0 {
					t.Skip("nothing to change")
				}
				m.allocs[pick(t)].Owner = m.genOwner(t)
				m.step(t)
			},
			"swap two MACs": func(t *rapid.T) {
				if len(m.allocs) < 2 {
					t.Skip("fewer than two entries")
				}
				i, j := pick(t), pick(t)
				m.allocs[i].Owner, m.allocs[j].Owner = m.allocs[j].Owner, m.allocs[i].Owner
				m.step(t)
			},
			"change options": func(t *rapid.T) {
				m.opts = rapid.IntRange(0, len(m.f.options)-1).Draw(t, "options")
				m.step(t)
			},
			"inject a bad entry": func(t *rapid.T) {
				bad := rapid.SampledFrom([]ipam.Allocation{
					{Addr: m.f.at(5), Owner: "vm-1"},
					{Addr: m.f.at(6), Owner: "02:00:5e:10:00:00:00:01"},
					{Addr: m.f.at(1), Owner: "52:54:00:00:00:01"},
					{Addr: m.f.at(21), Owner: "52:54:00:00:00:02"},
					{Addr: m.f.at(31), Owner: "52:54:00:00:00:03"},
					{Addr: m.f.at(40), Owner: "52:54:00:00:00:04"},
					{Addr: m.f.other, Owner: "52:54:00:00:00:05"},
					{Owner: "52:54:00:00:00:06"},
				}).Draw(t, "bad")
				if len(m.allocs) > 0 && rapid.Bool().Draw(t, "duplicate") {
					// An existing address or MAC once more.
					e := m.allocs[pick(t)]
					if rapid.Bool().Draw(t, "same address") {
						bad = ipam.Allocation{Addr: e.Addr, Owner: m.genOwner(t)}
					} else {
						bad = ipam.Allocation{Addr: m.genAddr(t), Owner: e.Owner}
					}
				}
				m.allocs = append(m.allocs, bad)
				m.step(t)
			},
			"": func(t *rapid.T) {
				if m.prev == nil {
					return
				}
				checkStore(t, m.prev, m.prevWant, &m.f.options[m.prevOpts].kept)
			},
		})
	})
}
