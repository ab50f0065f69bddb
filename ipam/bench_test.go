package ipam

// Benchmarks behind the ipam table of docs/performance.md; run them with
// `make bench` (hack/bench.sh). Each compares Pool with the in-repo
// baselines (baseline_naive_test.go, baseline_flat_test.go) in one run.

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/internal/measure"
	"github.com/vmnetkit/vmnetkit/internal/u128"
)

// v4Usable returns the usable range of an IPv4 prefix as integers.
func v4Usable(prefix string) (first, last uint32) {
	f, l := usableRange(netip.MustParsePrefix(prefix))
	return uint32(f.Lo), uint32(l.Lo)
}

// xorshift is the benchmarks' deterministic, allocation-free random source.
type xorshift uint64

func (x *xorshift) next() uint64 {
	*x ^= *x << 13
	*x ^= *x >> 7
	*x ^= *x << 17
	return uint64(*x)
}

// meter reports time per allocation: wall time (ns/alloc, like ns/op) and
// the process's CPU time (cpu-ns/alloc, from getrusage, GC workers
// included). On a shared, loaded machine wall time also counts the time the
// benchmark waited for a CPU; CPU time does not, so its ratios are steadier.
// Its stop and start wrap b.StopTimer and b.StartTimer.
type meter struct {
	b         *testing.B
	cpu, mark time.Duration
}

// newMeter resets b's timer (what came before is setup, not measured) and
// starts counting CPU time: call it right before the b.N loop.
func newMeter(b *testing.B) *meter {
	b.ResetTimer()
	return &meter{b: b, mark: cpuTime()}
}

// cpuTime is measure.CPU, 0 where the platform does not say.
func cpuTime() time.Duration {
	d, _ := measure.CPU()
	return d
}

func (m *meter) stop() {
	m.b.StopTimer()
	m.cpu += cpuTime() - m.mark
}

func (m *meter) start() {
	m.mark = cpuTime()
	m.b.StartTimer()
}

// report must follow the b.N loop: it stops the timer, so that nothing
// after the loop is measured, and reports per allocation (b.N times
// allocsPerOp).
func (m *meter) report(allocsPerOp int) {
	m.stop()
	n := float64(m.b.N) * float64(allocsPerOp)
	m.b.ReportMetric(float64(m.b.Elapsed().Nanoseconds())/n, "ns/alloc")
	m.b.ReportMetric(float64(m.cpu.Nanoseconds())/n, "cpu-ns/alloc")
}

// BenchmarkFill creates a pool and fills it to exhaustion (Lowest for Pool,
// the first free entry of the map for naive): Pool and flat on a /16 and a
// /18, naive on the /18 only, as docs/performance.md's table compares them.
func BenchmarkFill(b *testing.B) {
	for _, c := range []struct{ name, prefix string }{{"v4-16", "10.0.0.0/16"}, {"v4-18", "10.0.0.0/18"}} {
		prefix, name := c.prefix, c.name
		first, last := v4Usable(prefix)
		owners := macs(int(last - first + 1))
		b.Run(name+"/pool", func(b *testing.B) {
			m := newMeter(b)
			for range b.N {
				p, _ := New(Spec{Prefix: netip.MustParsePrefix(prefix)})
				for _, o := range owners {
					if _, err := p.Allocate(o); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := p.Allocate("one-more"); !errors.Is(err, ErrExhausted) {
					b.Fatalf("pool not full: %v", err)
				}
			}
			m.report(len(owners))
		})
		b.Run(name+"/flat", func(b *testing.B) {
			m := newMeter(b)
			for range b.N {
				p := newFlatPool(first, last)
				for _, o := range owners {
					if _, err := p.Allocate(o); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := p.Allocate("one-more"); !errors.Is(err, ErrExhausted) {
					b.Fatalf("flat not full: %v", err)
				}
			}
			m.report(len(owners))
		})
		if prefix != "10.0.0.0/18" {
			continue
		}
		b.Run(name+"/naive", func(b *testing.B) {
			m := newMeter(b)
			for range b.N {
				p := newNaivePool(first, last) // timed, like New for Pool and flat
				for _, o := range owners {
					if _, err := p.Allocate(o); err != nil {
						b.Fatal(err)
					}
				}
			}
			m.report(len(owners))
		})
	}
}

// churner is what BenchmarkChurn needs from Pool and flatPool.
type churner interface {
	Allocate(owner string) (netip.Addr, error)
	Release(addr netip.Addr) (string, error)
}

// ninety returns the allocations of a pool of prefix 90% full: every usable
// address but one in ten, chosen at random, each with its own owner.
func ninety(prefix string) []Allocation {
	first, last := v4Usable(prefix)
	allocs := make([]Allocation, 0, int(last-first+1)/10*9+1024)
	r := xorshift(42)
	for v := first; v <= last; v++ {
		if r.next()%10 != 0 {
			allocs = append(allocs, Allocation{u128.From64(uint64(v)).Addr(true), mac(int(v - first))})
		}
	}
	return allocs
}

// churnSetup builds the 90% full pool of an implementation in bulk (Restore
// for Pool; a presized map for flat) so that the /8 takes seconds, and
// returns it with its allocated addresses.
func churnSetup(b *testing.B, impl, prefix string) (churner, []netip.Addr) {
	allocs := ninety(prefix)
	held := make([]netip.Addr, len(allocs))
	for i, a := range allocs {
		held[i] = a.Addr
	}
	if impl == "pool" {
		p, problems, err := Restore(Snapshot{Spec: Spec{Prefix: netip.MustParsePrefix(prefix)}, Allocations: allocs})
		if err != nil || len(problems) != 0 {
			b.Fatal(problems, err)
		}
		runtime.GC() // start timing with no collection under way
		return p, held
	}
	first, last := v4Usable(prefix)
	p := newFlatPool(first, last)
	p.offsets = make(map[string]uint32, len(allocs))
	for _, a := range allocs {
		o := uint32(u128.FromAddr(a.Addr).Lo) - first
		p.words[o/64] |= 1 << (o % 64)
		p.owner[o] = a.Owner
		p.offsets[a.Owner] = o
	}
	runtime.GC()
	return p, held
}

// churn releases a random allocated address and allocates again, b.N times.
func churn(b *testing.B, p churner, held []netip.Addr) {
	r := xorshift(7)
	m := newMeter(b)
	for range b.N {
		i := r.next() % uint64(len(held))
		owner, err := p.Release(held[i])
		if err != nil {
			b.Fatal(err)
		}
		if held[i], err = p.Allocate(owner); err != nil {
			b.Fatal(err)
		}
	}
	m.report(1)
}

// BenchmarkChurn: a pool 90% full, with random holes; each operation
// releases a random allocated address and allocates (Lowest) again. The
// pool is built once per implementation (not timed) and kept across -count
// runs, so later runs continue the same steady state.
func BenchmarkChurn(b *testing.B) {
	for _, c := range []struct{ name, prefix string }{{"v4-16", "10.0.0.0/16"}, {"v4-8", "10.0.0.0/8"}} {
		for _, impl := range []string{"pool", "flat"} {
			var p churner
			var held []netip.Addr
			b.Run(c.name+"/"+impl, func(b *testing.B) {
				if p == nil {
					p, held = churnSetup(b, impl, c.prefix)
				}
				churn(b, p, held)
			})
			p, held = nil, nil
			runtime.GC()
		}
	}
}

// restoreInput returns n allocations at distinct random addresses of
// prefix, in random order.
func restoreInput(prefix string, n int) Snapshot {
	spec := Spec{Prefix: netip.MustParsePrefix(prefix)}
	l, _ := compile(spec)
	seen := make(map[uint64]bool, n)
	allocs := make([]Allocation, 0, n)
	r := xorshift(99)
	size := l.max.Lo + 1
	for len(allocs) < n {
		o := r.next() % size
		if seen[o] {
			continue
		}
		seen[o] = true
		allocs = append(allocs, Allocation{l.addr(u128.From64(o)), mac(len(allocs))})
	}
	return Snapshot{Spec: spec, Allocations: allocs}
}

// BenchmarkRestore: 16,000 allocations into a /16 (Pool's Restore against
// naive AllocateAddr per entry), and 100,000 shuffled allocations in a /12
// (Restore against a slices.SortFunc of the same allocations).
func BenchmarkRestore(b *testing.B) {
	snap16 := restoreInput("10.0.0.0/16", 16000)
	b.Run("16k-v4-16/pool", func(b *testing.B) {
		m := newMeter(b)
		for range b.N {
			if _, problems, err := Restore(snap16); err != nil || len(problems) != 0 {
				b.Fatal(problems, err)
			}
		}
		m.report(len(snap16.Allocations))
	})
	b.Run("16k-v4-16/naive", func(b *testing.B) {
		// Every naive AllocateAddr scans the map until it meets the wanted
		// key, whatever is already allocated, so its cost per entry does
		// not depend on how many entries there are: time the first 32 and
		// report per entry. Building the map (52 ms) is not timed.
		first, last := v4Usable("10.0.0.0/16")
		p := newNaivePool(first, last)
		sample := snap16.Allocations[:32]
		m := newMeter(b)
		for range b.N {
			for _, a := range sample {
				if err := p.AllocateAddr(net.IP(a.Addr.AsSlice()), a.Owner); err != nil {
					b.Fatal(err)
				}
			}
			m.stop()
			for _, a := range sample {
				p.used[a.Addr.String()] = false
			}
			m.start()
		}
		m.report(len(sample))
	})
	snap12 := restoreInput("10.0.0.0/12", 100_000)
	b.Run("100k-v4-12/pool", func(b *testing.B) {
		m := newMeter(b)
		for range b.N {
			if _, problems, err := Restore(snap12); err != nil || len(problems) != 0 {
				b.Fatal(problems, err)
			}
		}
		m.report(len(snap12.Allocations))
	})
	b.Run("100k-v4-12/sort", func(b *testing.B) {
		buf := make([]Allocation, len(snap12.Allocations))
		m := newMeter(b)
		for range b.N {
			m.stop()
			copy(buf, snap12.Allocations)
			m.start()
			slices.SortFunc(buf, func(x, y Allocation) int { return x.Addr.Compare(y.Addr) })
		}
		m.report(len(buf))
	})
}

// BenchmarkMillion allocates 1,000,000 owners (Lowest) in a /12 and in a
// /64 and reports the time and the heap retained per allocation (owner
// strings included: they are created inside the measurement).
func BenchmarkMillion(b *testing.B) {
	const n = 1_000_000
	for _, prefix := range []string{"10.0.0.0/12", "2001:db8::/64"} {
		name := "v4-12"
		if prefix != "10.0.0.0/12" {
			name = "v6-64"
		}
		spec := Spec{Prefix: netip.MustParsePrefix(prefix)}
		b.Run(name+"/pool", func(b *testing.B) {
			retained := retainedBy(b, n, func(owner func(int) string) { keep = fillDense(b, spec, n, owner) })
			owners := macs(n)
			m := newMeter(b)
			for range b.N {
				fillDense(b, spec, n, func(i int) string { return owners[i] })
			}
			m.report(n)
			b.ReportMetric(retained, "retained-B/alloc") // after the loop: b.ResetTimer drops metrics
		})
	}
}

// fillDense returns a pool of spec with the owners 0 to n-1 allocated in
// order (Lowest).
func fillDense(b *testing.B, spec Spec, n int, owner func(int) string) *Pool {
	p, _ := New(spec)
	for i := range n {
		if _, err := p.Allocate(owner(i)); err != nil {
			b.Fatal(err)
		}
	}
	return p
}

// scatteredN is the number of owners of BenchmarkScattered: 1,000,000, or
// 100,000 with -short, or $VMNETKIT_SCATTERED_N for quick iteration.
func scatteredN() int {
	if s := os.Getenv("VMNETKIT_SCATTERED_N"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	if testing.Short() {
		return 100_000
	}
	return 1_000_000
}

// scatteredAddrs returns n distinct pseudo-random allocatable addresses of
// prefix, as static IPv6 assignment (EUI-64, hashed or random interface
// IDs) scatters them: uniform over the pool's range, 128-bit offsets in
// ::/0 (whose range ends at ffff:...:fffe, not at 2^128-1).
func scatteredAddrs(prefix string, n int) []netip.Addr {
	l, _ := compile(Spec{Prefix: netip.MustParsePrefix(prefix)})
	r := xorshift(2024)
	seen := make(map[u128.U128]bool, n)
	out := make([]netip.Addr, 0, n)
	for len(out) < n {
		o := u128.U128{Hi: r.next(), Lo: r.next()}
		if l.max.Hi == 0 {
			o.Hi = 0
			if l.max.Lo != ^uint64(0) {
				o.Lo %= l.max.Lo + 1
			}
		}
		if l.max.Less(o) || seen[o] {
			continue
		}
		a := l.addr(o)
		if _, err := l.check(a); err != nil { // excluded: ::ffff:0:0/96 in ::/0
			continue
		}
		seen[o] = true
		out = append(out, a)
	}
	return out
}

// BenchmarkScattered allocates n owners (scatteredN) in a /64 densely
// (Allocate, Lowest) and by AllocateAddr at pseudo-random addresses of the
// same /64 and of ::/0, and reports the time and the heap retained per
// allocation (owner strings included), so that scattered and dense compare
// within one run.
func BenchmarkScattered(b *testing.B) {
	n := scatteredN()
	owners := macs(n)
	b.Run("v6-64/dense", func(b *testing.B) {
		spec := Spec{Prefix: netip.MustParsePrefix("2001:db8::/64")}
		retained := retainedBy(b, n, func(owner func(int) string) { keep = fillDense(b, spec, n, owner) })
		m := newMeter(b)
		for range b.N {
			fillDense(b, spec, n, func(i int) string { return owners[i] })
		}
		m.report(n)
		b.ReportMetric(retained, "retained-B/alloc")
	})
	for _, c := range []struct{ name, prefix string }{{"v6-64/scattered", "2001:db8::/64"}, {"v6-0/scattered", "::/0"}} {
		spec := Spec{Prefix: netip.MustParsePrefix(c.prefix)}
		addrs := scatteredAddrs(c.prefix, n)
		b.Run(c.name, func(b *testing.B) {
			retained := retainedBy(b, n, func(owner func(int) string) {
				p, _ := New(spec)
				for i, a := range addrs {
					if err := p.AllocateAddr(a, owner(i)); err != nil {
						b.Fatal(err)
					}
				}
				keep = p
			})
			m := newMeter(b)
			for range b.N {
				p, _ := New(spec)
				for i, a := range addrs {
					if err := p.AllocateAddr(a, owners[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
			m.report(n)
			b.ReportMetric(retained, "retained-B/alloc")
		})
	}
}

// keep holds the pool retainedBy measures until it has read the heap.
var keep *Pool

// retainedBy returns the heap that fill's pool (stored in keep) retains
// per allocation, n fresh 17-byte owners (mac) included.
func retainedBy(b *testing.B, n int, fill func(owner func(int) string)) float64 {
	bytes := measure.Retained(func() any {
		fill(mac)
		return keep
	})
	keep = nil
	runtime.GC()
	return float64(bytes) / float64(n)
}
