package leasestore_test

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/netiptest"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// TestBuildMatchesModelAtScale runs Build on inputs large enough for its
// radix and bucket sorts (a few thousand allocations), with duplicate
// addresses and MACs, against the model, and checks Diff and Apply
// between consecutive tables.
func TestBuildMatchesModelAtScale(t *testing.T) {
	v4 := ipam.Spec{Prefix: netip.MustParsePrefix("10.16.0.0/20"), Reserved: netiptest.Addrs("10.16.0.1")}
	v6 := ipam.Spec{Prefix: netip.MustParsePrefix("fd00:1:0:ff00::/56")} // addresses differ in their upper 64 bits
	for _, tc := range []struct {
		name   string
		spec   ipam.Spec
		n      int
		addrOf func(r *rand.Rand) netip.Addr
		macOf  func(r *rand.Rand) leasestore.MAC
		sorted bool
	}{
		{"IPv4 shuffled OUI MACs", v4, 3000, randAddr4, ouiMAC, false},
		{"IPv4 sorted OUI MACs", v4, 3000, randAddr4, ouiMAC, true},
		{"IPv4 random MACs", v4, 3000, randAddr4, randMAC, false},
		{"IPv4 skewed MACs", v4, 3000, randAddr4, skewedMAC, false},
		{"IPv6 across /64s", v6, 2000, randAddr6, ouiMAC, false},
		{"IPv6 sorted", v6, 2000, randAddr6, skewedMAC, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(tc.n)))
			pool, err := ipam.New(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			usable := func(a netip.Addr) bool { return pool.Check(a) == nil }
			var prev *leasestore.Store
			var prevWant map[leasestore.MAC]netip.Addr
			for round := range 3 {
				allocs := make([]ipam.Allocation, tc.n)
				for i := range allocs {
					allocs[i] = ipam.Allocation{Addr: tc.addrOf(r), Owner: spell(tc.macOf(r), r.IntN(4))}
				}
				if tc.sorted {
					slices.SortFunc(allocs, func(a, b ipam.Allocation) int { return a.Addr.Compare(b.Addr) })
				}
				s, problems := leasestore.Build(ipam.Snapshot{Spec: tc.spec, Allocations: allocs}, leasestore.Options{})
				want := modelTable(allocs, usable)
				checkStore(t, s, want, &leasestore.Options{})
				if len(problems) != tc.n-s.Len() {
					t.Fatalf("round %d: %d problems for %d allocations and %d leases", round, len(problems), tc.n, s.Len())
				}
				p := leasestore.Diff(prev, s)
				if got, want := fmt.Sprint(leases(p.Apply(prev))), fmt.Sprint(leases(s)); got != want {
					t.Fatalf("round %d: Plan.Apply(old) != new", round)
				}
				add, remove, update := modelPlan(prevWant, want, false)
				if len(p.Add) != len(add) || len(p.Remove) != len(remove) || len(p.Update) != len(update) {
					t.Fatalf("round %d: plan +%d -%d ~%d; model +%d -%d ~%d", round,
						len(p.Add), len(p.Remove), len(p.Update), len(add), len(remove), len(update))
				}
				prev, prevWant = s, want
			}
		})
	}
}

// Addresses collide often (a quarter of a /20, a few thousand of a /56's
// chosen /64s), so duplicate addresses are common.
func randAddr4(r *rand.Rand) netip.Addr {
	return netip.AddrFrom4([4]byte{10, 16, byte(r.IntN(4)), byte(r.IntN(256))})
}

func randAddr6(r *rand.Rand) netip.Addr {
	b := netip.MustParseAddr("fd00:1:0:ff00::").As16()
	b[7] = byte(r.IntN(8))
	b[15] = byte(r.IntN(512))
	b[14] = byte(r.IntN(2))
	return netip.AddrFrom16(b)
}

// MACs collide often too.
func ouiMAC(r *rand.Rand) leasestore.MAC {
	return leasestore.MustParseMAC(fmt.Sprintf("52:54:00:00:%02x:%02x", r.IntN(12), r.IntN(256)))
}

func randMAC(r *rand.Rand) leasestore.MAC {
	v := r.Uint64()
	if r.IntN(4) == 0 {
		v &= 0xfff // a cluster of low MACs
	}
	return leasestore.MustParseMAC(fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", byte(v>>40), byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v)))
}

// skewedMAC puts almost every MAC in one bucket of the MAC sort, so that
// its comparison-sort fallback runs.
func skewedMAC(r *rand.Rand) leasestore.MAC {
	if r.IntN(100) == 0 {
		return leasestore.MustParseMAC("fe:00:00:00:00:00")
	}
	return leasestore.MustParseMAC(fmt.Sprintf("00:00:00:00:%02x:%02x", r.IntN(16), r.IntN(256)))
}

// TestPackedMatchesWideAtScale builds snapshots of distinct addresses and
// MACs, large enough for the radix sorts of the packed tables, and checks
// that the packed Store serves exactly what the wide one (key width 0)
// does and what the model says, and that Diff between the two forms is
// empty.
func TestPackedMatchesWideAtScale(t *testing.T) {
	spec := ipam.Spec{Prefix: netip.MustParsePrefix("10.16.0.0/12"), Reserved: netiptest.Addrs("10.16.0.1")}
	pool, err := ipam.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		n          int
		gap        int                              // addresses between two allocations: below gap
		mac        func(r *rand.Rand, i int) uint64 // distinct for distinct i
		wantPacked bool
	}{
		{"OUI MACs", 70000, 3, func(r *rand.Rand, i int) uint64 { return 0x525400_000000 | uint64(i)*0x9e3779&0xffffff }, true},
		{"MACs in a few low buckets", 5000, 3, func(r *rand.Rand, i int) uint64 { return 0x525400_000000 | uint64(i) }, true},
		{"locally administered MACs", 5000, 3, func(r *rand.Rand, i int) uint64 { return 0x02_0000000000 | uint64(i)<<20 | uint64(r.IntN(1<<20)) }, true},
		{"MACs of every vendor, within 2^16 addresses", 5000, 20, func(r *rand.Rand, i int) uint64 { return uint64(i)<<35 | r.Uint64()&(1<<35-1) }, true},
		{"MACs of every vendor, across 2^17 addresses", 5000, 50, func(r *rand.Rand, i int) uint64 { return uint64(i)<<35 | r.Uint64()&(1<<35-1) }, false},
		{"below the radix sort", 300, 3, func(r *rand.Rand, i int) uint64 { return 0x525400_000000 | uint64(i)*7919 }, true},
	} {
		for _, order := range []string{"sorted", "shuffled"} {
			t.Run(tc.name+"/"+order, func(t *testing.T) {
				r := rand.New(rand.NewPCG(2, uint64(tc.n)))
				allocs := make([]ipam.Allocation, tc.n)
				a := netip.MustParseAddr("10.16.0.2")
				for i := range allocs {
					for range r.IntN(tc.gap) {
						a = a.Next()
					}
					m := tc.mac(r, i)
					allocs[i] = ipam.Allocation{Addr: a, Owner: fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x",
						byte(m>>40), byte(m>>32), byte(m>>24), byte(m>>16), byte(m>>8), byte(m))}
					a = a.Next()
				}
				if order == "shuffled" {
					r.Shuffle(len(allocs), func(i, j int) { allocs[i], allocs[j] = allocs[j], allocs[i] })
				}
				snap := ipam.Snapshot{Spec: spec, Allocations: allocs}
				packed, problems := leasestore.Build(snap, opts4)
				if packed.Packed() != tc.wantPacked || len(problems) != 0 {
					t.Fatalf("Build: packed %v, want %v; problems %v", packed.Packed(), tc.wantPacked, problems)
				}
				restore := leasestore.SetPackBits(0)
				wide, _ := leasestore.Build(snap, opts4)
				restore()
				if wide.Packed() {
					t.Fatal("Build with key width 0 packed its tables")
				}
				checkStore(t, packed, modelTable(allocs, func(a netip.Addr) bool { return pool.Check(a) == nil }), &opts4)
				if got, want := fmt.Sprint(leases(packed)), fmt.Sprint(leases(wide)); got != want {
					t.Fatalf("packed and wide tables differ:\n got %.300s\nwant %.300s", got, want)
				}
				if p := leasestore.Diff(wide, packed); !p.Empty() {
					t.Fatalf("Diff(wide, packed) = +%d -%d ~%d", len(p.Add), len(p.Remove), len(p.Update))
				}
			})
		}
	}
}
