package controller

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
)

// poolEntryModel is the plain model of a poolEntry: the IPAddresses the
// informer shows and the creates in flight, by owner.
type poolEntryModel struct {
	objects map[string]netip.Addr
	pending map[string]netip.Addr
	marks   map[netip.Addr]string // addresses found locked by another's lock, by holder, until a resync
	pre     map[string]netip.Addr // spec.preAllocations, by claim
	preOf   map[netip.Addr]string
}

// takenFor reports whether a is another's than owner o's: an IPAddress, a
// create or a lock of another names it, or it is pre-allocated to another.
func (m *poolEntryModel) takenFor(o string, a netip.Addr) bool {
	for _, h := range m.holders(a) {
		if h != o {
			return true
		}
	}
	c, ok := m.preOf[a]
	return ok && c != o
}

// holders returns the owners the model says may hold a.
func (m *poolEntryModel) holders(a netip.Addr) []string {
	var out []string
	for o, x := range m.objects {
		if x == a {
			out = append(out, o)
		}
	}
	for o, x := range m.pending {
		if x == a {
			out = append(out, o)
		}
	}
	if h, ok := m.marks[a]; ok {
		out = append(out, foreignLockOwner(h, a))
	}
	return out
}

// may reports whether the model allows owner o to hold a in the pool:
// o's IPAddress or create names it, o is the mark of a lock found on it,
// or o is the placeholder of the claim it is pre-allocated to.
func (m *poolEntryModel) may(o string, a netip.Addr) bool {
	return m.objects[o] == a || m.pending[o] == a || (m.marks[a] != "" && foreignLockOwner(m.marks[a], a) == o) ||
		(m.preOf[a] != "" && placeholderOwner(m.preOf[a]) == o)
}

// scanCounts is counts the slow way: a walk of every IPAddress.
func scanCounts(e *poolEntry) (outOfRange, notHeld uint64) {
	for o, a := range e.objects {
		if e.ipamPool.Check(a) != nil {
			outOfRange++
		}
		if held, ok := e.ipamPool.Lookup(a); !ok || held != o {
			notHeld++
		}
	}
	return outOfRange, notHeld
}

// fataler is what readyEntry needs of a *testing.B or a *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// testKey is the pool of the entries readyEntry makes.
var testKey = poolKey{Kind: v1alpha1.PoolKind, Namespace: "ns", Name: "p"}

// readyEntry returns an entry of source (testKey's spec) holding the
// IPAddresses items, its machine Ready as the pool reconciler leaves it
// after a build.
func readyEntry(tb fataler, source v1alpha1.PoolSpec, items []ipamv1.IPAddress) *poolEntry {
	tb.Helper()
	spec, pre, err := parsePool(testKey, &source)
	if err != nil {
		tb.Fatal(err)
	}
	e := &poolEntry{machine: cacheready.New("test")}
	d := cacheready.Driver[*poolEntry]{
		Publish: func(conditions.Condition, string, *poolEntry, bool) error { return nil },
		Build: func(int64) (*poolEntry, error) {
			built, _, err := restoreEntry(spec, items)
			if err == nil {
				built.setPreAllocationsLocked(pre, source)
			}
			return built, err
		},
		Adopt: func(b *poolEntry) {
			e.ipamPool, e.spec, e.objects, e.pending, e.outOfRange = b.ipamPool, b.spec, b.objects, b.pending, b.outOfRange
			e.pre, e.preOf, e.source = b.pre, b.preOf, b.source
		},
	}
	m, err := d.Run(e.machine, cacheready.Observed{Generation: 1})
	if err != nil {
		tb.Fatal(err)
	}
	e.machine = m
	if !e.readyLocked() {
		tb.Fatalf("entry not ready after a build: %v", m.State())
	}
	return e
}

// TestPoolEntryRapid drives a poolEntry with the events a claim reconciler
// and the informer make, in any order, against the model: the pool never
// holds an address for an owner that has no IPAddress or create of it,
// every address an IPAddress or a create names (in range) is held by one of
// them, so Allocate never hands it out, and resync changes none of that;
// an address found locked by another's lock stays taken until that one's
// IPAddress shows or a resync; a pre-allocated address is never free, and
// is handed to no claim but its own, which gets it and no other; a claim
// that asks for an address gets it or a failure that says why; the
// counts, kept without a walk, are the walk's.
func TestPoolEntryRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		source := v1alpha1.PoolSpec{Addresses: []string{"10.0.0.0/28"}, Prefix: 28, Gateway: "10.0.0.1",
			PreAllocations: map[string]v1alpha1.PreAllocatedAddress{}}
		m := &poolEntryModel{objects: map[string]netip.Addr{}, pending: map[string]netip.Addr{}, marks: map[netip.Addr]string{},
			pre: map[string]netip.Addr{}, preOf: map[netip.Addr]string{}}
		// Some claims have an address pre-allocated, z one that never comes.
		for _, c := range []string{"a", "b", "z"} {
			a := netip.AddrFrom4([4]byte{10, 0, 0, byte(rapid.IntRange(2, 14).Draw(t, "pre-allocated to "+c))})
			if _, taken := m.preOf[a]; !taken && rapid.Bool().Draw(t, "pre-allocate to "+c) {
				source.PreAllocations[c] = v1alpha1.PreAllocatedAddress(a.String())
				m.pre["ns/"+c], m.preOf[a] = a, "ns/"+c
			}
		}
		// One goroutine drives e: it calls the …Locked methods and reads
		// e's fields without mu, which nothing else takes.
		e := readyEntry(t, source, nil)
		owner := rapid.SampledFrom([]string{"ns/a", "ns/b", "ns/c", "ns/d", "ns/e", "ns/f"})
		// Addresses of the /28, with some outside it (a spec that shrank).
		addr := rapid.Custom(func(t *rapid.T) netip.Addr {
			return netip.AddrFrom4([4]byte{10, 0, 0, byte(rapid.IntRange(0, 20).Draw(t, "host"))})
		})

		t.Repeat(map[string]func(*rapid.T){
			// The informer shows an IPAddress (made by this process or
			// another, possibly of an address another one holds).
			"added": func(t *rapid.T) {
				o, a := owner.Draw(t, "owner"), addr.Draw(t, "addr")
				if _, ok := m.pending[o]; ok {
					t.Skip("a create in flight ends first (create, AlreadyExists)")
				}
				if h, ok := m.marks[a]; ok && h == o {
					delete(m.marks, a) // the lock's IPAddress shows
				}
				m.objects[o] = a
				e.seen(o, a, true)
			},
			// A claim found a free address locked by another's lock (its
			// IPAddress not shown yet): the pool marks it taken.
			"locked by another": func(t *rapid.T) {
				h, a := owner.Draw(t, "holder"), addr.Draw(t, "addr")
				if _, ok := e.ipamPool.Lookup(a); ok || e.ipamPool.Check(a) != nil {
					t.Skip("not a free address")
				}
				if len(m.holders(a)) > 0 || m.objects[h].IsValid() || m.pending[h].IsValid() {
					t.Skip("an IPAddress or create names it, or the holder has its IPAddress")
				}
				e.markForeignLock(a, h)
				if held, _ := e.ipamPool.Lookup(a); held != foreignLockOwner(h, a) {
					t.Fatalf("markForeignLock(%s, %s) left it held by %q", a, h, held)
				}
				m.marks[a] = h
			},
			"removed": func(t *rapid.T) {
				o := owner.Draw(t, "owner")
				a, ok := m.objects[o]
				if !ok {
					t.Skip("no IPAddress")
				}
				delete(m.objects, o)
				e.seen(o, a, false)
			},
			// A claim reconciler picks an address, or the one the claim
			// asks for, and starts its create (reserve).
			"allocate": func(t *rapid.T) {
				o := owner.Draw(t, "owner")
				if _, ok := m.objects[o]; ok {
					t.Skip("the claim has its IPAddress")
				}
				if _, ok := m.pending[o]; ok {
					t.Skip("a create in flight")
				}
				var asked netip.Addr
				if rapid.Bool().Draw(t, "asks") {
					asked = addr.Draw(t, "asked")
				}
				res, f := e.reserve(testKey, o, asked, time.Time{})
				if want := m.reserved(t, e, o, asked, res, f); want.IsValid() {
					m.pending[o] = want
				}
			},
			"create succeeded": func(t *rapid.T) {
				o := owner.Draw(t, "owner")
				a, ok := m.pending[o]
				if !ok {
					t.Skip("no create in flight")
				}
				delete(m.pending, o)
				m.objects[o] = a
				e.settle(o, a, true, a)
			},
			"create failed": func(t *rapid.T) {
				o := owner.Draw(t, "owner")
				a, ok := m.pending[o]
				if !ok {
					t.Skip("no create in flight")
				}
				delete(m.pending, o)
				e.settle(o, a, false, netip.Addr{})
			},
			// The create found the address locked by another's lock: the
			// claim lets go of it, then marks it taken (create's order).
			"create lost the lock": func(t *rapid.T) {
				o, h := owner.Draw(t, "owner"), owner.Draw(t, "holder")
				a, ok := m.pending[o]
				if !ok || h == o {
					t.Skip("no create in flight, or the claim's own lock")
				}
				delete(m.pending, o)
				e.settle(o, a, false, netip.Addr{})
				e.markForeignLock(a, h)
				if e.ipamPool.Check(a) == nil && len(m.holders(a)) == 0 {
					m.marks[a] = h
				}
			},
			// The create found the claim's IPAddress made by another process.
			"create already exists": func(t *rapid.T) {
				o := owner.Draw(t, "owner")
				a, ok := m.pending[o]
				if !ok {
					t.Skip("no create in flight")
				}
				other := addr.Draw(t, "their addr")
				delete(m.pending, o)
				if h, ok := m.marks[other]; ok && h == o {
					delete(m.marks, other) // the lock's IPAddress shows
				}
				m.objects[o] = other
				e.settle(o, a, false, other)
			},
			"resync": func(t *rapid.T) {
				e.resyncLocked()
				clear(m.marks)
				_, _, _, out, notHeld := e.countsLocked()
				if wantOut, wantNotHeld := scanCounts(e); out != wantOut || notHeld != wantNotHeld {
					t.Fatalf("counts outOfRange %d, notHeld %d; the walk says %d, %d", out, notHeld, wantOut, wantNotHeld)
				}
			},
			"": func(t *rapid.T) {
				for a, o := range e.ipamPool.All() {
					if !m.may(o, a) {
						t.Fatalf("the pool holds %s for %s, which has no IPAddress or create of it", a, o)
					}
				}
				for _, set := range []map[string]netip.Addr{m.objects, m.pending} {
					for o, a := range set {
						if e.ipamPool.Check(a) != nil {
							continue // out of range: never handed out anyway
						}
						held, ok := e.ipamPool.Lookup(a)
						if !ok {
							t.Fatalf("%s of %s is free in the pool", a, o)
						}
						if !m.may(held, a) || strings.HasPrefix(held, placeholderPrefix) {
							t.Fatalf("%s is held by %s, not by one of %v", a, held, m.holders(a))
						}
					}
				}
				for c, a := range m.pre {
					if _, ok := e.ipamPool.Lookup(a); !ok {
						t.Fatalf("%s, pre-allocated to %s, is free in the pool", a, c)
					}
				}
				for a, h := range m.marks {
					if held, ok := e.ipamPool.Lookup(a); !ok {
						t.Fatalf("%s, found locked by %s's lock, is free in the pool", a, h)
					} else if !m.may(held, a) {
						t.Fatalf("%s is held by %s, not by one of %v", a, held, m.holders(a))
					}
				}
				_, used, _, out, _ := e.countsLocked()
				if used != uint64(len(m.objects)) {
					t.Fatalf("counts used %d, want %d", used, len(m.objects))
				}
				if wantOut, _ := scanCounts(e); out != wantOut {
					t.Fatalf("counts outOfRange %d, the walk says %d", out, wantOut)
				}
			},
		})
	})
}

// reserved checks what reserve(o, asked) returned against the model, and
// returns the address o's create now holds, if any. A claim with an
// address pre-allocated gets that one; one that asks for an address gets
// it; a failure says why not (the annotation disagrees with the
// pre-allocation, the pool does not hand the address out, another holds
// it). Any other claim gets an address nobody holds and no claim has
// pre-allocated, or finds the pool exhausted.
func (m *poolEntryModel) reserved(t *rapid.T, e *poolEntry, o string, asked netip.Addr, res reservation, f *failure) netip.Addr {
	want, pre := m.pre[o]
	wantReason := ""
	switch {
	case pre && asked.IsValid() && asked != want:
		wantReason = ReasonAddressConflict
	case !pre:
		want = asked
	}
	if wantReason == "" && want.IsValid() {
		var ae *v1alpha1.AddressError
		switch {
		case errors.As(e.source.CheckAddress(want), &ae) && ae.Listed:
			wantReason = ReasonAddressExcluded
		case ae != nil:
			wantReason = ReasonAddressNotInPool
		case m.takenFor(o, want):
			wantReason = ReasonAddressInUse
		}
	}
	switch {
	case wantReason != "" && (f == nil || f.reason != wantReason):
		t.Fatalf("reserve(%s, %v) = %+v, %+v; want reason %q", o, asked, res, f, wantReason)
	case wantReason != "":
		return netip.Addr{}
	case want.IsValid() && (f != nil || res.addr != want || res.source == ""):
		t.Fatalf("reserve(%s, %v) = %+v, %+v; want %s, asked for", o, asked, res, f, want)
	case f != nil && f.reason != ReasonPoolExhausted:
		t.Fatalf("reserve(%s): %+v, want an address or %s", o, *f, ReasonPoolExhausted)
	case f != nil:
		return netip.Addr{}
	case m.takenFor(o, res.addr):
		t.Fatalf("reserve(%s) = %s, which %v hold or is pre-allocated to %q", o, res.addr, m.holders(res.addr), m.preOf[res.addr])
	}
	return res.addr
}
