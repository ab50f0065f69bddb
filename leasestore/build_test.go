package leasestore_test

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vmnetkit/vmnetkit/internal/netiptest"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// TestMACChangeForSameAddress: the field failure "a MAC that changes for
// the same address keeps its old lease and the new MAC gets none".
func TestMACChangeForSameAddress(t *testing.T) {
	old := mustBuild(t, snap(spec4, "10.0.0.5=52:54:00:00:00:0a", "10.0.0.6=52:54:00:00:00:0b"), opts4)
	new := mustBuild(t, snap(spec4, "10.0.0.5=52:54:00:00:00:0c", "10.0.0.6=52:54:00:00:00:0b"), opts4)

	if l, ok := new.Lookup(leasestore.MustParseMAC("52:54:00:00:00:0c")); !ok || l.Addr != netip.MustParseAddr("10.0.0.5") {
		t.Errorf("new MAC: Lookup = %v, %v; want 10.0.0.5", l, ok)
	}
	if l, ok := new.Lookup(leasestore.MustParseMAC("52:54:00:00:00:0a")); ok {
		t.Errorf("old MAC still has a lease: %v", l)
	}
	if l, ok := new.LookupAddr(netip.MustParseAddr("10.0.0.5")); !ok || l.MAC != leasestore.MustParseMAC("52:54:00:00:00:0c") {
		t.Errorf("LookupAddr(10.0.0.5) = %v, %v; want the new MAC", l, ok)
	}
	p := leasestore.Diff(old, new)
	want := []string{"- 52:54:00:00:00:0a 10.0.0.5/24", "+ 52:54:00:00:00:0c 10.0.0.5/24"}
	if diff := cmp.Diff(want, planLines(p)); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
	checkPlan(t, old, new, p)
}

// TestTwoAddressesSwapMACs: the field failure "two addresses that swap
// MACs keep serving the old ones".
func TestTwoAddressesSwapMACs(t *testing.T) {
	old := mustBuild(t, snap(spec4, "10.0.0.5=52:54:00:00:00:0a", "10.0.0.6=52:54:00:00:00:0b"), opts4)
	new := mustBuild(t, snap(spec4, "10.0.0.5=52:54:00:00:00:0b", "10.0.0.6=52:54:00:00:00:0a"), opts4)

	wantTable := []string{"52:54:00:00:00:0b 10.0.0.5/24", "52:54:00:00:00:0a 10.0.0.6/24"}
	if diff := cmp.Diff(wantTable, table(new)); diff != "" {
		t.Errorf("new table (-want +got):\n%s", diff)
	}
	p := leasestore.Diff(old, new)
	want := []string{
		"~ 52:54:00:00:00:0a 10.0.0.5/24 -> 52:54:00:00:00:0a 10.0.0.6/24",
		"~ 52:54:00:00:00:0b 10.0.0.6/24 -> 52:54:00:00:00:0b 10.0.0.5/24",
	}
	if diff := cmp.Diff(want, planLines(p)); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
	checkPlan(t, old, new, p)
}

// TestOneBadEntryDoesNotAbort: the field failure "one bad entry aborts the
// whole pass and leaves a random subset of leases missing". Each bad entry
// is mixed into good ones, in every rotation of the input: the good leases
// are all served, the bad entry is reported with its sentinel, and the
// result does not depend on the order.
func TestOneBadEntryDoesNotAbort(t *testing.T) {
	good := []string{"10.0.0.5=52:54:00:00:00:01", "10.0.0.6=52:54:00:00:00:02", "10.0.0.7=52:54:00:00:00:03"}
	goodTable := []string{"52:54:00:00:00:01 10.0.0.5/24", "52:54:00:00:00:02 10.0.0.6/24", "52:54:00:00:00:03 10.0.0.7/24"}
	for _, tc := range []struct {
		name      string
		bad       []string
		wantTable []string // nil: goodTable
		wantErr   error
		wantText  string
	}{
		{name: "owner not a MAC", bad: []string{"10.0.0.8=instance-1"}, wantErr: leasestore.ErrNotMAC,
			wantText: `leasestore: lease 10.0.0.8 for "instance-1": want xx:xx:xx:xx:xx:xx, xx-xx-xx-xx-xx-xx, xxxx.xxxx.xxxx or xxxxxxxxxxxx: not a 6-byte MAC address`},
		{name: "EUI-64 owner", bad: []string{"10.0.0.8=02:00:5e:10:00:00:00:01"}, wantErr: leasestore.ErrNotMAC,
			wantText: "8-byte EUI-64 address, want 6 bytes"},
		{name: "outside the prefix", bad: []string{"10.0.1.8=52:54:00:00:00:09"}, wantErr: ipam.ErrOutOfRange,
			wantText: `leasestore: lease 10.0.1.8 for "52:54:00:00:00:09": ipam: check "10.0.1.8" in 10.0.0.0/24`},
		{name: "broadcast address", bad: []string{"10.0.0.255=52:54:00:00:00:09"}, wantErr: ipam.ErrOutOfRange},
		{name: "other family", bad: []string{"fd00::8=52:54:00:00:00:09"}, wantErr: ipam.ErrOutOfRange},
		{name: "excluded", bad: []string{"10.0.0.104=52:54:00:00:00:09"}, wantErr: ipam.ErrExcluded},
		{name: "reserved", bad: []string{"10.0.0.1=52:54:00:00:00:09"}, wantErr: ipam.ErrReserved},
		{name: "MAC on a second address", bad: []string{"10.0.0.9=52:54:00:00:00:02"}, wantErr: leasestore.ErrDuplicateMAC,
			wantText: `leasestore: lease 10.0.0.9 for "52:54:00:00:00:02": MAC also holds 10.0.0.6, which it keeps: duplicate MAC`},
		{name: "MAC on a lower address", bad: []string{"10.0.0.4=52-54-00-00-00-03"}, wantErr: leasestore.ErrDuplicateMAC,
			wantTable: []string{"52:54:00:00:00:03 10.0.0.4/24", "52:54:00:00:00:01 10.0.0.5/24", "52:54:00:00:00:02 10.0.0.6/24"},
			wantText:  `leasestore: lease 10.0.0.7 for "52:54:00:00:00:03": MAC also holds 10.0.0.4, which it keeps: duplicate MAC`},
		{name: "address twice, higher MAC", bad: []string{"10.0.0.6=52:54:00:00:00:09"}, wantErr: leasestore.ErrDuplicateAddr,
			wantText: `leasestore: lease 10.0.0.6 for "52:54:00:00:00:09": held by 52:54:00:00:00:02: duplicate address`},
		{name: "address twice, lower MAC", bad: []string{"10.0.0.6=52:54:00:00:00:00"}, wantErr: leasestore.ErrDuplicateAddr,
			wantTable: []string{"52:54:00:00:00:01 10.0.0.5/24", "52:54:00:00:00:00 10.0.0.6/24", "52:54:00:00:00:03 10.0.0.7/24"}},
		{name: "same entry twice", bad: []string{"10.0.0.6=52:54:00:00:00:02"}, wantErr: leasestore.ErrDuplicateAddr},
		{name: "same entry in another spelling", bad: []string{"10.0.0.6=5254.0000.0002"}, wantErr: leasestore.ErrDuplicateAddr,
			wantText: `leasestore: lease 10.0.0.6 for "52:54:00:00:00:02": listed again for the same MAC (as "5254.0000.0002"): duplicate address`},
		{name: "zero address", bad: []string{""}, wantErr: ipam.ErrOutOfRange},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.wantTable
			if want == nil {
				want = goodTable
			}
			var first []leasestore.Problem
			all := append(slices.Clone(good), tc.bad...)
			for rot := range all {
				entries := append(slices.Clone(all[rot:]), all[:rot]...)
				s := snap(spec4)
				for _, e := range entries {
					if e == "" {
						s.Allocations = append(s.Allocations, ipam.Allocation{Owner: "52:54:00:00:00:09"})
						continue
					}
					s.Allocations = append(s.Allocations, snap(spec4, e).Allocations...)
				}
				before := slices.Clone(s.Allocations)
				st, problems := leasestore.Build(s, opts4)
				if diff := cmp.Diff(before, s.Allocations, cmpOpts); diff != "" {
					t.Fatalf("Build modified the snapshot (-before +after):\n%s", diff)
				}
				if diff := cmp.Diff(want, table(st)); diff != "" {
					t.Errorf("rotation %d: table (-want +got):\n%s", rot, diff)
				}
				if len(problems) != 1 || !errors.Is(problems[0].Err, tc.wantErr) || !errors.Is(problems[0], tc.wantErr) {
					t.Fatalf("rotation %d: problems %v, want one wrapping %v", rot, problems, tc.wantErr)
				}
				if !strings.Contains(problems[0].Error(), tc.wantText) {
					t.Errorf("problem %q, want it to contain %q", problems[0].Error(), tc.wantText)
				}
				if rot == 0 {
					first = problems
				} else if diff := cmp.Diff(fmt.Sprint(first), fmt.Sprint(problems)); diff != "" {
					t.Errorf("rotation %d: problems depend on the order (-first +got):\n%s", rot, diff)
				}
			}
		})
	}
}

// TestLookupFindsLeaseWhateverTheSpelling: the field failure "MACs are
// looked up in a different spelling than they were stored in", at the
// level of the table: owners spelled any way are found by the MAC a
// packet carries, and two spellings of one MAC are one MAC.
func TestLookupFindsLeaseWhateverTheSpelling(t *testing.T) {
	st, problems := leasestore.Build(snap(spec4,
		"10.0.0.5=52-54-00-AB-CD-01",
		"10.0.0.6=5254.00ab.cd02",
		"10.0.0.7=52:54:00:Ab:cD:03",
		"10.0.0.8=525400abcd04",
		"10.0.0.9=52:54:00:ab:cd:01", // the first one again, in another spelling
	), opts4)
	for i, hw := range []string{"52:54:00:ab:cd:01", "52:54:00:ab:cd:02", "52:54:00:ab:cd:03", "52:54:00:ab:cd:04"} {
		mac, err := leasestore.ParseMAC(hw)
		if err != nil {
			t.Fatal(err)
		}
		l, ok := st.Lookup(mac)
		if want := netip.AddrFrom4([4]byte{10, 0, 0, byte(5 + i)}); !ok || l.Addr != want {
			t.Errorf("Lookup(%s) = %v, %v; want %s", hw, l, ok, want)
		}
	}
	if len(problems) != 1 || !errors.Is(problems[0], leasestore.ErrDuplicateMAC) || problems[0].Owner != "52:54:00:ab:cd:01" {
		t.Errorf("problems = %v, want 10.0.0.9 as a duplicate MAC", problems)
	}
}

// TestOptionChangesReachExistingLeases: the field failure "option changes
// (DNS, router, lease time) never reach existing leases".
func TestOptionChangesReachExistingLeases(t *testing.T) {
	s := snap(spec4, "10.0.0.5=52:54:00:00:00:01", "10.0.0.6=52:54:00:00:00:02")
	old := mustBuild(t, s, opts4)
	for _, tc := range []struct {
		name   string
		change func(o *leasestore.Options)
	}{
		{"DNS", func(o *leasestore.Options) { o.DNS = netiptest.Addrs("10.0.0.3", "10.0.0.2") }},
		{"router", func(o *leasestore.Options) { o.Router = netip.MustParseAddr("10.0.0.254") }},
		{"lease time", func(o *leasestore.Options) { o.LeaseTime = 10 * time.Minute }},
		{"NTP", func(o *leasestore.Options) { o.NTP = netiptest.Addrs("10.0.0.4") }},
		{"search list", func(o *leasestore.Options) { o.DomainSearch = []string{"lab.example.com"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := opts4
			opts.DNS = slices.Clone(opts4.DNS)
			tc.change(&opts)
			new := mustBuild(t, s, opts)
			p := leasestore.Diff(old, new)
			if len(p.Add) != 0 || len(p.Remove) != 0 || len(p.Update) != 2 {
				t.Fatalf("Diff = %v, want an update of both leases", planLines(p))
			}
			for _, c := range p.Update {
				if diff := cmp.Diff(&opts, c.New.Options, cmpOpts); diff != "" {
					t.Errorf("update of %v: options (-want +got):\n%s", c.New.MAC, diff)
				}
				if diff := cmp.Diff(&opts4, c.Old.Options, cmpOpts); diff != "" {
					t.Errorf("update of %v: old options (-want +got):\n%s", c.Old.MAC, diff)
				}
			}
			checkPlan(t, old, new, p)
			for l := range p.Apply(old).All() {
				if !l.Options.Equal(&opts) {
					t.Errorf("applied lease %v has options %+v, want %+v", l, *l.Options, opts)
				}
			}
		})
	}
}

// TestBuildKeepsItsOwnOptions: the Store's options do not change when the
// caller reuses its Options value, and all leases share one *Options.
func TestBuildKeepsItsOwnOptions(t *testing.T) {
	opts := opts4
	opts.DNS = netiptest.Addrs("10.0.0.2", "10.0.0.3")
	st := mustBuild(t, snap(spec4, "10.0.0.5=52:54:00:00:00:01", "10.0.0.6=52:54:00:00:00:02"), opts)
	opts.DNS[0] = netip.MustParseAddr("192.0.2.1")
	var shared *leasestore.Options
	for l := range st.All() {
		if shared == nil {
			shared = l.Options
		}
		if l.Options != shared {
			t.Errorf("lease %v has its own *Options", l)
		}
		if l.Options.DNS[0] != netip.MustParseAddr("10.0.0.2") {
			t.Errorf("lease %v sees the caller's later change: %v", l, l.Options.DNS)
		}
	}
}

// TestInvalidOptionsAreDroppedAndReported: an invalid pool-wide option is
// a Problem, the value is left out of every lease, and the rest is served.
func TestInvalidOptionsAreDroppedAndReported(t *testing.T) {
	opts := leasestore.Options{
		Router:     netip.MustParseAddr("fd00::1"),
		DNS:        netiptest.Addrs("10.0.0.2", "fd00::53", "10.0.0.3"),
		DomainName: "bad_name.example",
		LeaseTime:  100 * time.Millisecond,
	}
	st, problems := leasestore.Build(snap(spec4, "10.0.0.5=52:54:00:00:00:01", "10.0.0.6=nope"), opts)
	want := leasestore.Options{DNS: netiptest.Addrs("10.0.0.2", "10.0.0.3")}
	l, ok := st.Lookup(leasestore.MustParseMAC("52:54:00:00:00:01"))
	if !ok {
		t.Fatal("the valid allocation is not served")
	}
	if diff := cmp.Diff(&want, l.Options, cmpOpts); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	if st.Options() != l.Options {
		t.Errorf("Store.Options() = %p, want the leases' %p", st.Options(), l.Options)
	}
	var got []string
	for _, p := range problems {
		got = append(got, fmt.Sprintf("%v %q %v", p.Addr, p.Owner, errors.Is(p, leasestore.ErrInvalidOptions)))
	}
	wantProblems := []string{
		`invalid IP "" true`, `invalid IP "" true`, `invalid IP "" true`, `invalid IP "" true`,
		`10.0.0.6 "nope" false`,
	}
	if diff := cmp.Diff(wantProblems, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s\n%v", diff, problems)
	}
}

// TestOptionsOfAnEmptyStore: a table with no lease still says which
// options it serves (an INFORM, say, needs them), and invalid ones are
// dropped there too; a nil Store has none.
func TestOptionsOfAnEmptyStore(t *testing.T) {
	opts := opts4
	opts.DNS = netiptest.Addrs("10.0.0.2", "fd00::53")
	st, _ := leasestore.Build(snap(spec4), opts)
	if st.Len() != 0 {
		t.Fatalf("Len() = %d, want 0", st.Len())
	}
	want := opts4
	want.DNS = netiptest.Addrs("10.0.0.2")
	if diff := cmp.Diff(&want, st.Options(), cmpOpts); diff != "" {
		t.Errorf("Options() (-want +got):\n%s", diff)
	}
	var none *leasestore.Store
	if got := none.Options(); got != nil {
		t.Errorf("nil Store's Options() = %v, want nil", got)
	}
}

// TestNoNameResolution: the field failure "NTP host names are resolved over
// the network while the table is locked". Options hold addresses only (the
// type has no field for a server name), and building, diffing and looking
// up never reach the resolver, even with domain names in the options.
func TestNoNameResolution(t *testing.T) {
	withoutResolver(t)
	opts := opts4
	opts.NTP = netiptest.Addrs("10.0.0.3")
	opts.DomainName = "ntp.unresolvable.invalid"
	opts.DomainSearch = []string{"time.unresolvable.invalid"}
	s := snap(spec4, "10.0.0.5=52:54:00:00:00:01")
	old := mustBuild(t, s, opts4)
	new := mustBuild(t, s, opts)
	p := leasestore.Diff(old, new)
	_ = p.Apply(old)
	l, ok := new.Lookup(leasestore.MustParseMAC("52:54:00:00:00:01"))
	if !ok || !slices.Equal(l.Options.NTP, netiptest.Addrs("10.0.0.3")) || l.Options.DomainName != opts.DomainName {
		t.Errorf("Lookup = %+v, %v; want the options as given", l, ok)
	}
}

func TestInvalidSpec(t *testing.T) {
	st, problems := leasestore.Build(snap(ipam.Spec{Prefix: netip.MustParsePrefix("10.0.0.7/24")}, "10.0.0.5=52:54:00:00:00:01"), opts4)
	if st == nil || st.Len() != 0 {
		t.Errorf("Build with an invalid spec: store %v, want an empty one", table(st))
	}
	if len(problems) != 1 || !errors.Is(problems[0], ipam.ErrInvalidSpec) {
		t.Errorf("problems = %v, want one wrapping ipam.ErrInvalidSpec", problems)
	}
}

func TestIPv6(t *testing.T) {
	spec := ipam.Spec{Prefix: netip.MustParsePrefix("fd00:1::/64"), Reserved: netiptest.Addrs("fd00:1::1")}
	st, problems := leasestore.Build(snap(spec,
		"fd00:1::ffff:ffff:ffff:fffe=52:54:00:00:00:02",
		"fd00:1::5=52:54:00:00:00:01",
		"fd00:1::1=52:54:00:00:00:03",
		"10.0.0.5=52:54:00:00:00:04",
	), leasestore.Options{DNS: netiptest.Addrs("fd00:1::53")})
	want := []string{"52:54:00:00:00:01 fd00:1::5/64", "52:54:00:00:00:02 fd00:1::ffff:ffff:ffff:fffe/64"}
	if diff := cmp.Diff(want, table(st)); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
	if len(problems) != 2 {
		t.Errorf("problems = %v, want the reserved and the IPv4 address", problems)
	}
	if _, ok := st.LookupAddr(netip.MustParseAddr("fd00:1::5%eth0")); ok {
		t.Error("LookupAddr with a zone found a lease")
	}
	if l, ok := st.LookupAddr(netip.MustParseAddr("fd00:1::5")); !ok || l.Prefix != spec.Prefix {
		t.Errorf("LookupAddr(fd00:1::5) = %v, %v", l, ok)
	}
}

func TestNilStoreIsEmpty(t *testing.T) {
	var s *leasestore.Store
	if s.Len() != 0 || len(leases(s)) != 0 {
		t.Error("nil Store is not empty")
	}
	if _, ok := s.Lookup(leasestore.MustParseMAC("52:54:00:00:00:01")); ok {
		t.Error("nil Store: Lookup found a lease")
	}
	if _, ok := s.LookupAddr(netip.MustParseAddr("10.0.0.5")); ok {
		t.Error("nil Store: LookupAddr found a lease")
	}
	full := mustBuild(t, snap(spec4, "10.0.0.5=52:54:00:00:00:01", "10.0.0.6=52:54:00:00:00:02"), opts4)
	p := leasestore.Diff(nil, full)
	if len(p.Add) != 2 || len(p.Remove)+len(p.Update) != 0 {
		t.Errorf("Diff(nil, s) = %v, want two adds", planLines(p))
	}
	checkPlan(t, nil, full, p)
	p = leasestore.Diff(full, nil)
	if len(p.Remove) != 2 || len(p.Add)+len(p.Update) != 0 {
		t.Errorf("Diff(s, nil) = %v, want two removes", planLines(p))
	}
	if got := p.Apply(full); got.Len() != 0 {
		t.Errorf("Diff(s, nil).Apply(s) has %d leases", got.Len())
	}
	if !leasestore.Diff(nil, nil).Empty() || !leasestore.Diff(full, full).Empty() {
		t.Error("Diff(x, x) is not empty")
	}
}

func TestAllStopsEarly(t *testing.T) {
	st := mustBuild(t, snap(spec4, "10.0.0.5=52:54:00:00:00:01", "10.0.0.6=52:54:00:00:00:02"), opts4)
	n := 0
	for range st.All() {
		n++
		break
	}
	if n != 1 {
		t.Errorf("All yielded %d leases after a break", n)
	}
}

// TestPrefixChangeUpdatesLeases: a pool that grows from /24 to /23 keeps its
// leases, each updated with the new prefix length.
func TestPrefixChangeUpdatesLeases(t *testing.T) {
	old := mustBuild(t, snap(spec4, "10.0.0.5=52:54:00:00:00:01"), opts4)
	wide := spec4
	wide.Prefix = netip.MustParsePrefix("10.0.0.0/23")
	new := mustBuild(t, snap(wide, "10.0.0.5=52:54:00:00:00:01"), opts4)
	p := leasestore.Diff(old, new)
	want := []string{"~ 52:54:00:00:00:01 10.0.0.5/24 -> 52:54:00:00:00:01 10.0.0.5/23"}
	if diff := cmp.Diff(want, planLines(p)); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
	checkPlan(t, old, new, p)
}

// TestApplyHandMadePlan: Apply keeps a Store's invariants for plans Diff
// would not make.
func TestApplyHandMadePlan(t *testing.T) {
	old := mustBuild(t, snap(spec4, "10.0.0.5=52:54:00:00:00:01", "10.0.0.6=52:54:00:00:00:02"), opts4)
	l1, _ := old.Lookup(leasestore.MustParseMAC("52:54:00:00:00:01"))
	lease := func(mac, addr string) leasestore.Lease {
		return leasestore.Lease{MAC: leasestore.MustParseMAC(mac), Addr: netip.MustParseAddr(addr), Prefix: spec4.Prefix, Options: l1.Options}
	}
	p := leasestore.Plan{Add: []leasestore.Lease{
		lease("52:54:00:00:00:03", "10.0.0.6"), // address taken by :02: :02 keeps it (lower MAC)
		lease("52:54:00:00:00:00", "10.0.0.9"), // fine
		lease("52:54:00:00:00:04", "10.0.1.9"), // outside the prefix
		lease("52:54:00:00:00:01", "10.0.0.4"), // MAC already served at .5: it keeps the lower .4
		lease("52:54:00:00:00:05", "fd00::1"),  // other family
	}, Remove: []leasestore.Lease{lease("52:54:00:00:00:09", "10.0.0.7")}} // not in old
	want := []string{"52:54:00:00:00:01 10.0.0.4/24", "52:54:00:00:00:02 10.0.0.6/24", "52:54:00:00:00:00 10.0.0.9/24"}
	if diff := cmp.Diff(want, table(p.Apply(old))); diff != "" {
		t.Errorf("Apply (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"52:54:00:00:00:01 10.0.0.5/24", "52:54:00:00:00:02 10.0.0.6/24"}, table(old)); diff != "" {
		t.Errorf("Apply modified old (-want +got):\n%s", diff)
	}
	nilOpts := leasestore.Plan{Add: []leasestore.Lease{{MAC: leasestore.MustParseMAC("52:54:00:00:00:07"), Addr: netip.MustParseAddr("10.0.0.7"), Prefix: spec4.Prefix}}}
	for l := range nilOpts.Apply(nil).All() {
		if l.Options == nil {
			t.Errorf("lease %v has nil Options", l)
		}
	}
}
