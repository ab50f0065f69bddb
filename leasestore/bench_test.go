package leasestore_test

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/internal/measure"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// The benchmarks measure Build, Diff and a Store's memory beside floors
// measured in the same run; compare them with benchstat:
//
//	go test -run '^$' -bench . -count 6 ./leasestore | tee out.txt
//	benchstat -col /op out.txt

var benchSizes = []int{1 << 16, 1_000_000}

var benchOptions = leasestore.Options{
	ServerIP:   netip.MustParseAddr("10.0.0.1"),
	Router:     netip.MustParseAddr("10.0.0.1"),
	DNS:        []netip.Addr{netip.MustParseAddr("10.0.0.2"), netip.MustParseAddr("10.0.0.3")},
	DomainName: "lab.example.com",
	LeaseTime:  time.Hour,
}

// benchSnapshot returns a dense IPv4 snapshot of n allocations, in address
// order (as ipam.Pool.Snapshot returns it) or shuffled, whose owners are
// distinct random MACs under the QEMU OUI 52:54:00, spelled in lowercase.
func benchSnapshot(n int, shuffled bool) ipam.Snapshot {
	return benchSnapshotMACs(n, shuffled, false)
}

// benchSnapshotMACs is benchSnapshot, with distinct random 48-bit MACs (of
// every vendor) when anyVendor: too many MAC bits for n addresses of 2^16
// or more to pack with them, so Build takes its wide path.
func benchSnapshotMACs(n int, shuffled, anyVendor bool) ipam.Snapshot {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	spec := ipam.Spec{
		Prefix:   netip.MustParsePrefix("10.0.0.0/8"),
		Exclude:  nil,
		Reserved: []netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2"), netip.MustParseAddr("10.0.0.3")},
	}
	allocs := make([]ipam.Allocation, n)
	addr := netip.MustParseAddr("10.0.0.10")
	// An odd multiplier permutes [0, 2^24): distinct MACs in a random-looking order.
	mul, add := r.Uint64()|1, r.Uint64()
	for i := range allocs {
		m := (uint64(i)*mul + add) & 0xffffff
		if anyVendor {
			m = (uint64(i)*mul + add) & (1<<48 - 1)
		} else {
			m |= 0x525400 << 24
		}
		allocs[i] = ipam.Allocation{Addr: addr, Owner: fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x",
			byte(m>>40), byte(m>>32), byte(m>>24), byte(m>>16), byte(m>>8), byte(m))}
		addr = addr.Next()
	}
	if shuffled {
		r.Shuffle(n, func(i, j int) { allocs[i], allocs[j] = allocs[j], allocs[i] })
	}
	return ipam.Snapshot{Spec: spec, Allocations: allocs}
}

// BenchmarkBuild is Build of a whole snapshot (op=build) beside the least
// any build does (op=floor): parse every owner with ParseMAC and sort the
// allocations once by address (slices.SortFunc on a fresh copy; the copy
// is not timed). order=sorted-any-vendor has MACs of every vendor, which
// do not pack: Build's wide path.
func BenchmarkBuild(b *testing.B) {
	for _, n := range benchSizes {
		for _, order := range []string{"sorted", "shuffled", "sorted-any-vendor"} {
			snap := benchSnapshotMACs(n, order == "shuffled", order == "sorted-any-vendor")
			b.Run(fmt.Sprintf("n=%d/order=%s/op=build", n, order), func(b *testing.B) {
				var cpu cpuMeter
				for i := 0; i < b.N; i++ {
					cpu.start()
					s, problems := leasestore.Build(snap, benchOptions)
					cpu.stop()
					if s.Len() != n || len(problems) != 0 {
						b.Fatalf("Build: %d leases, %d problems", s.Len(), len(problems))
					}
					if s.Packed() == (order == "sorted-any-vendor") {
						b.Fatalf("Build: packed %v", s.Packed())
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/alloc")
				cpu.report(b, n)
			})
			b.Run(fmt.Sprintf("n=%d/order=%s/op=floor", n, order), func(b *testing.B) {
				var cpu cpuMeter
				work := make([]ipam.Allocation, n)
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					copy(work, snap.Allocations)
					b.StartTimer()
					cpu.start()
					for _, a := range work {
						if _, err := leasestore.ParseMAC(a.Owner); err != nil {
							b.Fatal(err)
						}
					}
					slices.SortFunc(work, func(x, y ipam.Allocation) int { return x.Addr.Compare(y.Addr) })
					cpu.stop()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/alloc")
				cpu.report(b, n)
			})
		}
	}
}

// cpuMeter sums the process CPU time (all threads, the garbage
// collector's included) spent between start and stop. On a shared, busy
// machine it varies less than wall time, which counts the time other
// processes hold the CPUs.
type cpuMeter struct {
	total, t0 time.Duration
	ok        bool
}

func (m *cpuMeter) start() { m.t0, m.ok = measure.CPU() }

func (m *cpuMeter) stop() {
	if t, ok := measure.CPU(); ok && m.ok {
		m.total += t - m.t0
	}
}

func (m *cpuMeter) report(b *testing.B, n int) {
	if m.ok {
		b.ReportMetric(float64(m.total.Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/alloc")
	}
}

// editedSnapshot returns snap with 1% of its allocations changed: half of
// them get a new MAC (a Remove and an Add), half move to a new address
// past the last one (an Update). The new MACs are the old ones with the
// locally administered bit set when otherOUI, so that the new table does
// not pack the way the old one does (with a million leases it does not
// pack at all), else unused MACs of the same vendor prefix.
func editedSnapshot(snap ipam.Snapshot, otherOUI bool) ipam.Snapshot {
	allocs := slices.Clone(snap.Allocations)
	used := make(map[string]bool, len(allocs))
	for _, a := range allocs {
		used[a.Owner] = true
	}
	unused := uint32(0)
	next := netip.MustParseAddr("10.0.0.10")
	for _, a := range allocs {
		if next.Less(a.Addr) {
			next = a.Addr
		}
	}
	step := 100
	for i := 0; i < len(allocs); i += step {
		if (i/step)%2 == 0 {
			if otherOUI {
				allocs[i].Owner = "02" + allocs[i].Owner[2:]
			} else {
				for used[allocs[i].Owner] {
					allocs[i].Owner = fmt.Sprintf("52:54:00:%02x:%02x:%02x", byte(unused>>16), byte(unused>>8), byte(unused))
					unused++
				}
			}
		} else {
			next = next.Next()
			allocs[i].Addr = next
		}
	}
	return ipam.Snapshot{Spec: snap.Spec, Allocations: allocs}
}

// BenchmarkDiff is Diff of two stores that differ in 1% of their leases,
// reported per lease: with new MACs of the same vendor prefix (both tables
// packed alike: keys compare as integers) and of another (each lease is
// decoded).
func BenchmarkDiff(b *testing.B) {
	for _, n := range benchSizes {
		for _, otherOUI := range []bool{false, true} {
			snap := benchSnapshot(n, false)
			old, _ := leasestore.Build(snap, benchOptions)
			new, _ := leasestore.Build(editedSnapshot(snap, otherOUI), benchOptions)
			macs := "same-oui"
			if otherOUI {
				macs = "other-oui"
			}
			b.Run(fmt.Sprintf("n=%d/macs=%s", n, macs), func(b *testing.B) {
				var p leasestore.Plan
				b.ResetTimer()
				for range b.N {
					p = leasestore.Diff(old, new)
				}
				b.StopTimer()
				if got := len(p.Add) + len(p.Remove) + len(p.Update); got < n/100 {
					b.Fatalf("plan has %d changes, want at least %d", got, n/100)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/lease")
			})
		}
	}
}

// BenchmarkStoreBytes reports the heap a Store retains, measured with
// runtime.ReadMemStats after a GC, per lease (its Options included).
func BenchmarkStoreBytes(b *testing.B) {
	for _, n := range benchSizes {
		snap := benchSnapshot(n, true)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var perLease float64
			b.ResetTimer()
			for range b.N {
				perLease = retainedPerLease(b, snap)
			}
			b.StopTimer()
			b.ReportMetric(perLease, "B/lease")
		})
	}
}

// retainedPerLease builds snap and returns the heap its Store retains, in
// bytes per lease.
func retainedPerLease(tb testing.TB, snap ipam.Snapshot) float64 {
	var s *leasestore.Store
	bytes := measure.Retained(func() any {
		s, _ = leasestore.Build(snap, benchOptions)
		return s
	})
	if s.Len() != len(snap.Allocations) {
		tb.Fatalf("Build: %d leases of %d", s.Len(), len(snap.Allocations))
	}
	runtime.KeepAlive(snap)
	return float64(bytes) / float64(s.Len())
}

// BenchmarkBuildManyExcludes: Build of a pool whose Spec has 100,000
// Exclude ranges (one address of every eight handed out in 10.0.0.0/8)
// and one lease: what the Spec's checks cost.
func BenchmarkBuildManyExcludes(b *testing.B) {
	l := ipam.AddressList{Prefix: 8}
	for i := range 100_000 {
		o := uint32(8*i + 2)
		l.Addresses = append(l.Addresses, netip.AddrFrom4([4]byte{10, byte(o >> 16), byte(o >> 8), byte(o)}).String())
	}
	spec, err := l.Parse()
	if err != nil {
		b.Fatal(err)
	}
	snap := ipam.Snapshot{Spec: spec, Allocations: []ipam.Allocation{{Addr: netip.MustParseAddr("10.0.0.2"), Owner: "52:54:00:00:00:01"}}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, problems := leasestore.Build(snap, benchOptions); len(problems) != 0 {
			b.Fatal(problems)
		}
	}
}
