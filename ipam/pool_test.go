package ipam

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/measure"
)

func TestAllocate(t *testing.T) {
	p := mustNew(t, smallSpec())
	for _, step := range []struct {
		owner string
		want  string
		err   error
	}{
		{"a", "10.0.0.2", nil},
		{"b", "10.0.0.5", nil},
		{"a", "10.0.0.2", nil}, // idempotent
		{"c", "10.0.0.6", nil},
		{"d", "", ErrExhausted},
		{"", "", ErrInvalidOwner},
		{MarkerExcluded, "", ErrInvalidOwner},
		{MarkerReserved, "", ErrInvalidOwner},
	} {
		got, err := p.Allocate(step.owner)
		if !errors.Is(err, step.err) || (step.err == nil) != (err == nil) {
			t.Fatalf("Allocate(%q) error = %v, want %v", step.owner, err, step.err)
		}
		if step.want != "" && got != mpa(step.want) {
			t.Fatalf("Allocate(%q) = %v, want %s", step.owner, got, step.want)
		}
	}
	_, err := p.Allocate("52:54:00:aa:bb:cc")
	if want := `ipam: allocate "52:54:00:aa:bb:cc" in 10.0.0.0/29: pool exhausted`; err == nil || err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func TestAllocateAddrErrors(t *testing.T) {
	tests := []struct {
		name  string
		addr  string
		owner string
		want  error
		text  string
	}{
		{"free", "10.0.0.6", "n", nil, ""},
		{"same owner same addr", "10.0.0.2", "a", nil, ""},
		{"empty owner", "10.0.0.6", "", ErrInvalidOwner, `ipam: allocate "10.0.0.6" to "" in 10.0.0.0/29: empty owner: invalid owner`},
		{"marker owner", "10.0.0.6", MarkerReserved, ErrInvalidOwner, ""},
		{"network address", "10.0.0.0", "n", ErrOutOfRange, `ipam: allocate "10.0.0.0" to "n" in 10.0.0.0/29: outside 10.0.0.1-10.0.0.6: address out of range`},
		{"broadcast address", "10.0.0.7", "n", ErrOutOfRange, ""},
		{"other prefix", "10.0.1.2", "n", ErrOutOfRange, ""},
		{"other family", "2001:db8::2", "n", ErrOutOfRange, ""},
		{"zero addr", "", "n", ErrOutOfRange, ""},
		{"excluded", "10.0.0.3", "n", ErrExcluded, `ipam: allocate "10.0.0.3" to "n" in 10.0.0.0/29: address excluded`},
		{"reserved", "10.0.0.1", "n", ErrReserved, `ipam: allocate "10.0.0.1" to "n" in 10.0.0.0/29: address reserved`},
		{"in use", "10.0.0.2", "n", ErrInUse, `ipam: allocate "10.0.0.2" to "n" in 10.0.0.0/29: held by "a": address in use`},
		{"owner has another", "10.0.0.6", "a", ErrOwnerHasAddr, `ipam: allocate "10.0.0.6" to "a" in 10.0.0.0/29: "a" holds 10.0.0.2: owner already holds an address`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustNew(t, smallSpec())
			if err := p.AllocateAddr(mpa("10.0.0.2"), "a"); err != nil {
				t.Fatal(err)
			}
			var addr netip.Addr
			if tt.addr != "" {
				addr = mpa(tt.addr)
			}
			before := p.Snapshot()
			err := p.AllocateAddr(addr, tt.owner)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("AllocateAddr = %v, want nil", err)
				}
				if got, ok := p.Lookup(addr); !ok || got != tt.owner {
					t.Fatalf("Lookup = %q, %v; want %q", got, ok, tt.owner)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("AllocateAddr = %v, want %v", err, tt.want)
			}
			if tt.text != "" && err.Error() != tt.text {
				t.Errorf("AllocateAddr = %q\nwant            %q", err, tt.text)
			}
			if diff := diffSnap(before, p.Snapshot()); diff != "" {
				t.Errorf("a failed AllocateAddr changed the pool (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReleaseErrors(t *testing.T) {
	tests := []struct {
		name string
		addr string
		also error // besides ErrNotAllocated
	}{
		{"free", "10.0.0.5", nil},
		{"excluded", "10.0.0.3", ErrExcluded},
		{"reserved", "10.0.0.1", ErrReserved},
		{"out of range", "10.0.0.7", ErrOutOfRange},
		{"other family", "::1", ErrOutOfRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustNew(t, smallSpec())
			owner, err := p.Release(mpa(tt.addr))
			if owner != "" || !errors.Is(err, ErrNotAllocated) {
				t.Fatalf("Release = %q, %v; want ErrNotAllocated", owner, err)
			}
			if tt.also != nil && !errors.Is(err, tt.also) {
				t.Fatalf("Release = %v, want it to wrap %v too", err, tt.also)
			}
		})
	}
	p := mustNew(t, smallSpec())
	_, err := p.Release(mpa("10.0.0.5"))
	if want := `ipam: release "10.0.0.5" in 10.0.0.0/29: address not allocated`; err.Error() != want {
		t.Errorf("Release = %q, want %q", err, want)
	}
}

func TestReleaseAndReuse(t *testing.T) {
	p := mustNew(t, smallSpec())
	for _, o := range []string{"a", "b", "c"} {
		if _, err := p.Allocate(o); err != nil {
			t.Fatal(err)
		}
	}
	if owner, err := p.Release(mpa("10.0.0.5")); err != nil || owner != "b" {
		t.Fatalf("Release = %q, %v; want b", owner, err)
	}
	if _, ok := p.AddrOf("b"); ok {
		t.Fatal("b still holds an address")
	}
	if a, ok := p.ReleaseOwner("c"); !ok || a != mpa("10.0.0.6") {
		t.Fatalf("ReleaseOwner(c) = %v, %v", a, ok)
	}
	if _, ok := p.ReleaseOwner("c"); ok {
		t.Fatal("ReleaseOwner(c) twice succeeded")
	}
	if a, _ := p.Allocate("d"); a != mpa("10.0.0.5") {
		t.Fatalf("Lowest after release = %v, want 10.0.0.5", a)
	}
}

func TestSequential(t *testing.T) {
	spec := smallSpec()
	spec.Strategy = Sequential
	p := mustNew(t, spec)
	var got []string
	step := func(format string, args ...any) { got = append(got, fmt.Sprintf(format, args...)) }
	a, _ := p.Allocate("a") // .2
	b, _ := p.Allocate("b") // .5
	p.Release(a)
	c, _ := p.Allocate("c") // .6, not the just-released .2
	d, _ := p.Allocate("d") // wraps to .2
	_, err := p.Allocate("e")
	step("%v %v %v %v %v", a, b, c, d, errors.Is(err, ErrExhausted))
	p.Release(b)
	p.Release(c)
	f, _ := p.Allocate("f") // after .2: .5
	step("%v", f)
	if want := []string{"10.0.0.2 10.0.0.5 10.0.0.6 10.0.0.2 true", "10.0.0.5"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestLookupAndAddrOfMiss(t *testing.T) {
	p := mustNew(t, smallSpec())
	for _, a := range []netip.Addr{{}, mpa("10.0.0.2"), mpa("10.0.0.3"), mpa("10.9.0.2"), mpa("::1")} {
		if o, ok := p.Lookup(a); ok || o != "" {
			t.Errorf("Lookup(%v) = %q, %v", a, o, ok)
		}
	}
	if a, ok := p.AddrOf("nobody"); ok || a.IsValid() {
		t.Errorf("AddrOf(nobody) = %v, %v", a, ok)
	}
}

// TestSteadyStateDoesNotAllocate: once a pool's maps have grown, Release
// and Allocate of an existing owner string allocate nothing.
func TestSteadyStateDoesNotAllocate(t *testing.T) {
	for _, tt := range []struct {
		name     string
		spec     Spec
		filled   int
		restored bool
	}{
		{"/18 90% full", Spec{Prefix: mpp("10.0.0.0/18")}, 14700, false},
		{"/18 restored 90% full", Spec{Prefix: mpp("10.0.0.0/18")}, 16300, true},
		{"/24 one owner", Spec{Prefix: mpp("10.0.0.0/24")}, 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := mustNew(t, tt.spec)
			owners := make([]string, tt.filled)
			for i := range owners {
				owners[i] = fmt.Sprint("owner-", i)
				if _, err := p.Allocate(owners[i]); err != nil {
					t.Fatal(err)
				}
			}
			if tt.restored {
				// Restored with one address in ten free: Allocate must fit
				// in the leaves Restore built.
				snap := p.Snapshot()
				kept := snap.Allocations[:0]
				for i, a := range snap.Allocations {
					if i%10 != 3 {
						kept = append(kept, a)
					}
				}
				snap.Allocations = kept
				var err error
				if p, _, err = Restore(snap); err != nil {
					t.Fatal(err)
				}
				owners = owners[:0]
				for _, a := range kept {
					owners = append(owners, a.Owner)
				}
			}
			i := 0
			allocs := measure.Mallocs(1000, func() {
				owner := owners[i*7919%len(owners)]
				i++
				a, _ := p.AddrOf(owner)
				if _, err := p.Release(a); err != nil {
					t.Fatal(err)
				}
				if _, err := p.Allocate(owner); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Fatalf("Release+Allocate: %d allocations in 1000 runs, want 0", allocs)
			}
		})
	}
}

func TestErrorQuotesOddOwners(t *testing.T) {
	p := mustNew(t, smallSpec())
	err := p.AllocateAddr(mpa("10.0.0.3"), "vm %d\n")
	if want := `ipam: allocate "10.0.0.3" to "vm %d\n" in 10.0.0.0/29: address excluded`; err == nil || err.Error() != want {
		t.Fatalf("error = %q, want %q", err, want)
	}
}

// TestReadsDoNotAllocate: the read paths allocate nothing, in range or not.
func TestReadsDoNotAllocate(t *testing.T) {
	p := mustNew(t, smallSpec())
	p.Allocate("a")
	for name, f := range map[string]func(){
		"Lookup":           func() { p.Lookup(mpa("10.0.0.2")) },
		"Lookup outside":   func() { p.Lookup(mpa("192.0.2.1")) },
		"Lookup zero addr": func() { p.Lookup(netip.Addr{}) },
		"AddrOf":           func() { p.AddrOf("a") },
		"Check":            func() { p.Check(mpa("10.0.0.5")) },
		"Stats":            func() { p.Stats() },
		"Allocate held":    func() { p.Allocate("a") },
		"AllocateAddr same": func() {
			p.AllocateAddr(mpa("10.0.0.2"), "a")
		},
	} {
		if n := measure.Mallocs(100, f); n != 0 {
			t.Errorf("%s: %d allocations in 100 runs, want 0", name, n)
		}
	}
}

// TestSequentialAllocatesLittle: Sequential walks through the range, so it
// materializes new leaves as it goes and drops emptied ones (one is kept for
// reuse); that costs a few allocations per 64 addresses, no more.
func TestSequentialAllocatesLittle(t *testing.T) {
	p := mustNew(t, Spec{Prefix: mpp("10.0.0.0/16"), Strategy: Sequential})
	owners := make([]string, 1000)
	for i := range owners {
		owners[i] = fmt.Sprint("owner-", i)
		if _, err := p.Allocate(owners[i]); err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	n := measure.Mallocs(1000, func() {
		owner := owners[i*7919%len(owners)]
		i++
		p.ReleaseOwner(owner)
		if _, err := p.Allocate(owner); err != nil {
			t.Fatal(err)
		}
	})
	if n > 250 {
		t.Fatalf("Sequential Release+Allocate: %d allocations in 1000 runs, want at most 250", n)
	}
}
