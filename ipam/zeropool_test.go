package ipam

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go4.org/netipx"
)

// result is what one call of a Pool method returned: its values, and the
// error if it returns one.
type result struct {
	vals []any
	err  error
}

// TestUnmadePool: the zero Pool and a nil *Pool hold nothing and never
// panic. The methods that change or check a pool return an error wrapping
// ErrInvalidSpec; the readers report nothing.
func TestUnmadePool(t *testing.T) {
	addr := mpa("10.0.0.1")
	tests := []struct {
		name    string
		call    func(p *Pool) result
		want    []any
		wantErr string // the whole error; "" for a method that does not fail
	}{
		{
			name: "Prefix",
			call: func(p *Pool) result { return result{vals: []any{p.Prefix()}} },
			want: []any{netip.Prefix{}},
		},
		{
			name: "Range",
			call: func(p *Pool) result { return result{vals: []any{p.Range()}} },
			want: []any{netipx.IPRange{}},
		},
		{
			name: "Spec",
			call: func(p *Pool) result { return result{vals: []any{p.Spec()}} },
			want: []any{Spec{}},
		},
		{
			name: "Len",
			call: func(p *Pool) result { return result{vals: []any{p.Len()}} },
			want: []any{0},
		},
		{
			name:    "Check",
			call:    func(p *Pool) result { return result{err: p.Check(addr)} },
			wantErr: `ipam: check "10.0.0.1" in a pool not made by New or Restore: invalid spec`,
		},
		{
			name: "Allocate",
			call: func(p *Pool) result {
				a, err := p.Allocate("vm-1")
				return result{[]any{a}, err}
			},
			want:    []any{netip.Addr{}},
			wantErr: `ipam: allocate "vm-1" in a pool not made by New or Restore: invalid spec`,
		},
		{
			name: "Allocate invalid owner",
			call: func(p *Pool) result {
				a, err := p.Allocate("")
				return result{[]any{a}, err}
			},
			want:    []any{netip.Addr{}},
			wantErr: `ipam: allocate "" in a pool not made by New or Restore: invalid spec`,
		},
		{
			name:    "AllocateAddr",
			call:    func(p *Pool) result { return result{err: p.AllocateAddr(addr, "vm-1")} },
			wantErr: `ipam: allocate "10.0.0.1" to "vm-1" in a pool not made by New or Restore: invalid spec`,
		},
		{
			name: "Release",
			call: func(p *Pool) result {
				owner, err := p.Release(addr)
				return result{[]any{owner}, err}
			},
			want:    []any{""},
			wantErr: `ipam: release "10.0.0.1" in a pool not made by New or Restore: invalid spec`,
		},
		{
			name: "Release zero Addr",
			call: func(p *Pool) result {
				owner, err := p.Release(netip.Addr{})
				return result{[]any{owner}, err}
			},
			want:    []any{""},
			wantErr: `ipam: release "invalid IP" in a pool not made by New or Restore: invalid spec`,
		},
		{
			name: "ReleaseOwner",
			call: func(p *Pool) result {
				a, ok := p.ReleaseOwner("vm-1")
				return result{vals: []any{a, ok}}
			},
			want: []any{netip.Addr{}, false},
		},
		{
			name: "Lookup",
			call: func(p *Pool) result {
				owner, ok := p.Lookup(addr)
				return result{vals: []any{owner, ok}}
			},
			want: []any{"", false},
		},
		{
			name: "AddrOf",
			call: func(p *Pool) result {
				a, ok := p.AddrOf("vm-1")
				return result{vals: []any{a, ok}}
			},
			want: []any{netip.Addr{}, false},
		},
		{
			name: "Stats",
			call: func(p *Pool) result { return result{vals: []any{p.Stats()}} },
			want: []any{Stats{}},
		},
		{
			name: "All",
			call: func(p *Pool) result {
				var got []Allocation
				for a, owner := range p.All() {
					got = append(got, Allocation{a, owner})
				}
				return result{vals: []any{got}}
			},
			want: []any{[]Allocation(nil)},
		},
		{
			name: "Clone",
			call: func(p *Pool) result {
				c := p.Clone()
				// nil for nil; otherwise a new Pool, itself not made.
				return result{vals: []any{(c == nil) == (p == nil), p == nil || c != p, c.made()}}
			},
			want: []any{true, true, false},
		},
		{
			name: "Snapshot",
			call: func(p *Pool) result { return result{vals: []any{p.Snapshot()}} },
			want: []any{Snapshot{}},
		},
	}
	pools := []struct {
		name string
		pool func() *Pool
	}{
		{"nil *Pool", func() *Pool { return nil }},
		{"zero Pool", func() *Pool { return &Pool{} }},
		{"Clone of a zero Pool", func() *Pool { return (&Pool{}).Clone() }},
	}
	opts := cmp.Options{cmpAddrs, cmpopts.EquateComparable(Count{})}
	for _, pool := range pools {
		for _, tt := range tests {
			t.Run(pool.name+"/"+tt.name, func(t *testing.T) {
				p := pool.pool()
				got := tt.call(p)
				if diff := cmp.Diff(tt.want, got.vals, opts); diff != "" {
					t.Errorf("%s (-want +got):\n%s", tt.name, diff)
				}
				if tt.wantErr == "" {
					return
				}
				if !errors.Is(got.err, ErrInvalidSpec) {
					t.Fatalf("%s error = %v, want one wrapping ErrInvalidSpec", tt.name, got.err)
				}
				if diff := cmp.Diff(tt.wantErr, got.err.Error()); diff != "" {
					t.Errorf("%s error (-want +got):\n%s", tt.name, diff)
				}
				// A failed change leaves the pool as empty as it was.
				if p.Len() != 0 || p.made() {
					t.Errorf("%s changed the pool: Len %d, made %t", tt.name, p.Len(), p.made())
				}
			})
		}
	}
}

// TestUnmadePoolClone: Clone of a nil *Pool is nil; of a zero Pool, a new
// zero Pool.
func TestUnmadePoolClone(t *testing.T) {
	var nilPool *Pool
	if c := nilPool.Clone(); c != nil {
		t.Errorf("(*Pool)(nil).Clone() = %p, want nil", c)
	}
	zero := &Pool{}
	c := zero.Clone()
	if c == nil || c == zero || c.made() {
		t.Fatalf("(&Pool{}).Clone() = %p (receiver %p), made %t; want a new zero Pool", c, zero, c != nil && c.made())
	}
	if _, err := c.Allocate("vm-1"); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("Allocate on the clone = %v, want ErrInvalidSpec", err)
	}
}

// TestUnmadePoolFormatAllocated: the zero Pool's snapshot formats to an
// empty status map, which parses back to no allocation and no problem.
func TestUnmadePoolFormatAllocated(t *testing.T) {
	var p Pool
	got := FormatAllocated(p.Snapshot())
	if len(got) != 0 {
		t.Errorf("FormatAllocated(zero Pool's Snapshot) = %v, want empty", got)
	}
	snap, problems := ParseAllocated(p.Spec(), got)
	if len(problems) != 0 || len(snap.Allocations) != 0 {
		t.Errorf("ParseAllocated(zero Spec, {}) = %v, %v", snap, problems)
	}
}
