package ipam

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// macSpellings are the spellings of one MAC that leasestore.ParseMAC
// accepts, canonical first.
var macSpellings = []string{
	"52:54:00:aa:bb:cc",
	"52:54:00:AA:BB:CC",
	"52-54-00-AA-BB-CC",
	"52-54-00-aa-bb-cc",
	"5254.00aa.bbcc",
	"5254.00AA.BBCC",
	"525400aabbcc",
	"525400AABBCC",
}

const canonMAC = "52:54:00:aa:bb:cc"

func TestOwnerKindText(t *testing.T) {
	tests := []struct {
		name     string
		kind     OwnerKind
		wantText string // "" when MarshalText fails
		wantStr  string
	}{
		{"AnyOwner", AnyOwner, "Any", "Any"},
		{"MACOwners", MACOwners, "MAC", "MAC"},
		{"unknown", OwnerKind(9), "", "OwnerKind(9)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.kind.String(); got != tt.wantStr {
				t.Errorf("String() = %q, want %q", got, tt.wantStr)
			}
			b, err := json.Marshal(tt.kind)
			if tt.wantText == "" {
				if err == nil {
					t.Fatalf("json.Marshal(%v) = %s, want an error", tt.kind, b)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := `"` + tt.wantText + `"`; string(b) != want {
				t.Errorf("json.Marshal(%v) = %s, want %s", tt.kind, b, want)
			}
			var back OwnerKind = 9
			if err := json.Unmarshal(b, &back); err != nil || back != tt.kind {
				t.Errorf("json.Unmarshal(%s) = %v, %v", b, back, err)
			}
		})
	}
}

func TestParseOwnerKind(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    OwnerKind
		wantErr bool
	}{
		{name: "empty is the zero value", in: "", want: AnyOwner},
		{name: "Any", in: "Any", want: AnyOwner},
		{name: "MAC", in: "MAC", want: MACOwners},
		{name: "lower case", in: "mac", wantErr: true},
		{name: "upper case", in: "ANY", wantErr: true},
		{name: "unknown", in: "UUID", wantErr: true},
		{name: "String of an unknown kind", in: "OwnerKind(2)", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseOwnerKind(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("ParseOwnerKind(%q) = %v, %v; want %v, error %t", tt.in, got, err, tt.want, tt.wantErr)
			}
			var k OwnerKind = 9
			err = json.Unmarshal([]byte(`"`+tt.in+`"`), &k)
			if (err != nil) != tt.wantErr || (!tt.wantErr && k != tt.want) {
				t.Errorf("json.Unmarshal(%q) = %v, %v", tt.in, k, err)
			}
		})
	}
}

func macPool(t *testing.T) *Pool {
	t.Helper()
	return mustNew(t, Spec{Prefix: mpp("10.0.0.0/29"), Owners: MACOwners})
}

// TestMACOwnersOneOwner: every spelling of one MAC is one owner, for every
// method that takes an owner.
func TestMACOwnersOneOwner(t *testing.T) {
	for _, spelling := range macSpellings {
		t.Run(spelling, func(t *testing.T) {
			p := macPool(t)
			a, err := p.Allocate(spelling)
			if err != nil {
				t.Fatal(err)
			}
			for _, other := range macSpellings {
				if b, err := p.Allocate(other); err != nil || b != a {
					t.Errorf("Allocate(%q) after Allocate(%q) = %v, %v; want %v", other, spelling, b, err, a)
				}
				if b, ok := p.AddrOf(other); !ok || b != a {
					t.Errorf("AddrOf(%q) = %v, %t; want %v", other, b, ok, a)
				}
				if err := p.AllocateAddr(a, other); err != nil {
					t.Errorf("AllocateAddr(%v, %q) = %v, want nil (already held)", a, other, err)
				}
				if err := p.AllocateAddr(mpa("10.0.0.5"), other); !errors.Is(err, ErrOwnerHasAddr) {
					t.Errorf("AllocateAddr(10.0.0.5, %q) = %v, want ErrOwnerHasAddr", other, err)
				}
			}
			if p.Len() != 1 {
				t.Errorf("Len() = %d, want 1", p.Len())
			}
			if owner, ok := p.Lookup(a); !ok || owner != canonMAC {
				t.Errorf("Lookup(%v) = %q, %t; want %q", a, owner, ok, canonMAC)
			}
			for addr, owner := range p.All() {
				if addr != a || owner != canonMAC {
					t.Errorf("All() yields %v %q, want %v %q", addr, owner, a, canonMAC)
				}
			}
		})
	}
}

func TestMACOwnersReleaseOwner(t *testing.T) {
	for _, spelling := range macSpellings {
		t.Run(spelling, func(t *testing.T) {
			p := macPool(t)
			a, err := p.Allocate(canonMAC)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := p.ReleaseOwner(spelling)
			if !ok || got != a {
				t.Fatalf("ReleaseOwner(%q) = %v, %t; want %v", spelling, got, ok, a)
			}
			if p.Len() != 0 {
				t.Errorf("Len() = %d after ReleaseOwner, want 0", p.Len())
			}
			if _, ok := p.AddrOf(canonMAC); ok {
				t.Errorf("AddrOf(%q) found an address after ReleaseOwner(%q)", canonMAC, spelling)
			}
			// Release returns the stored, canonical form.
			if err := p.AllocateAddr(a, spelling); err != nil {
				t.Fatal(err)
			}
			if owner, err := p.Release(a); err != nil || owner != canonMAC {
				t.Errorf("Release(%v) = %q, %v; want %q", a, owner, err, canonMAC)
			}
		})
	}
}

func TestMACOwnersRefusesNonMAC(t *testing.T) {
	tests := []struct {
		name  string
		owner string
	}{
		{"name", "vm-1"},
		{"empty", ""},
		{"excluded marker", MarkerExcluded},
		{"reserved marker", MarkerReserved},
		{"five bytes", "52:54:00:aa:bb"},
		{"EUI-64", "02:00:5e:10:00:00:00:01"},
		{"InfiniBand", "00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01"},
		{"mixed separators", "52:54:00-aa-bb-cc"},
		{"trailing space", "52:54:00:aa:bb:cc "},
		{"leading space", " 52:54:00:aa:bb:cc"},
		{"bad hex digit", "52:54:00:aa:bb:cg"},
		{"not valid UTF-8", "52:54:00:aa:bb:c\xff"},
		{"odd bare digits", "525400aabbc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := macPool(t)
			if a, err := p.Allocate(tt.owner); !errors.Is(err, ErrInvalidOwner) {
				t.Errorf("Allocate(%q) = %v, %v; want ErrInvalidOwner", tt.owner, a, err)
			}
			if err := p.AllocateAddr(mpa("10.0.0.2"), tt.owner); !errors.Is(err, ErrInvalidOwner) {
				t.Errorf("AllocateAddr(10.0.0.2, %q) = %v, want ErrInvalidOwner", tt.owner, err)
			}
			if a, ok := p.AddrOf(tt.owner); ok {
				t.Errorf("AddrOf(%q) = %v, true", tt.owner, a)
			}
			if a, ok := p.ReleaseOwner(tt.owner); ok {
				t.Errorf("ReleaseOwner(%q) = %v, true", tt.owner, a)
			}
			if p.Len() != 0 {
				t.Errorf("Len() = %d, want 0", p.Len())
			}
		})
	}
}

func TestOwnerErrorText(t *testing.T) {
	tests := []struct {
		name  string
		kind  OwnerKind
		owner string
		want  string
	}{
		{"not a MAC", MACOwners, "vm-1", `ipam: allocate "vm-1" in 10.0.0.0/29: not a MAC address: invalid owner`},
		{"not valid UTF-8", AnyOwner, "vm-\xff", `ipam: allocate "vm-\xff" in 10.0.0.0/29: not valid UTF-8: invalid owner`},
		{"empty", AnyOwner, "", `ipam: allocate "" in 10.0.0.0/29: empty owner: invalid owner`},
		{"marker", AnyOwner, MarkerReserved, `ipam: allocate "RESERVED" in 10.0.0.0/29: "RESERVED" is a status-map marker: invalid owner`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustNew(t, Spec{Prefix: mpp("10.0.0.0/29"), Owners: tt.kind})
			_, err := p.Allocate(tt.owner)
			if err == nil {
				t.Fatalf("Allocate(%q) succeeded", tt.owner)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("Allocate(%q) error (-want +got):\n%s", tt.owner, diff)
			}
		})
	}
}

// TestAnyOwnerRefusesInvalidUTF8: "vm-\xff" and "vm-\xfe" would be two
// owners to a pool and one ("vm-\ufffd") to JSON, so no kind takes them.
func TestAnyOwnerRefusesInvalidUTF8(t *testing.T) {
	p := mustNew(t, smallSpec())
	for _, owner := range []string{"vm-\xff", "vm-\xfe"} {
		if a, err := p.Allocate(owner); !errors.Is(err, ErrInvalidOwner) {
			t.Errorf("Allocate(%q) = %v, %v; want ErrInvalidOwner", owner, a, err)
		}
		if err := p.AllocateAddr(mpa("10.0.0.5"), owner); !errors.Is(err, ErrInvalidOwner) {
			t.Errorf("AllocateAddr(10.0.0.5, %q) = %v, want ErrInvalidOwner", owner, err)
		}
	}
	if p.Len() != 0 {
		t.Fatalf("Len() = %d, want 0", p.Len())
	}

	snap := Snapshot{Spec: smallSpec(), Allocations: []Allocation{{mpa("10.0.0.2"), "vm-\xff"}, {mpa("10.0.0.5"), "vm-\xfe"}}}
	q, problems, err := Restore(snap)
	if err != nil {
		t.Fatal(err)
	}
	if q.Len() != 0 || len(problems) != 2 || !errors.Is(problems[0], ErrInvalidOwner) || !errors.Is(problems[1], ErrInvalidOwner) {
		t.Errorf("Restore kept %d allocations, problems %v; want none kept, two ErrInvalidOwner", q.Len(), problems)
	}
	// Had a pool kept them, JSON would have merged them: marshal refuses.
	if b, err := json.Marshal(snap); !errors.Is(err, ErrInvalidOwner) {
		t.Errorf("json.Marshal = %s, %v; want ErrInvalidOwner", b, err)
	}
	// Two owners that differ only in case stay two owners.
	a, _ := p.Allocate("vm-1")
	b, _ := p.Allocate("VM-1")
	if a == b || p.Len() != 2 {
		t.Errorf(`Allocate("vm-1"), Allocate("VM-1") = %v, %v; want two addresses`, a, b)
	}
}

// TestOwnerKindSurvives: a MACOwners pool stays one through Snapshot,
// Restore, Clone and JSON, and still takes every spelling afterwards.
func TestOwnerKindSurvives(t *testing.T) {
	p := macPool(t)
	a, err := p.Allocate("52-54-00-AA-BB-CC")
	if err != nil {
		t.Fatal(err)
	}
	fromJSON := func(t *testing.T) *Pool {
		b, err := json.Marshal(p.Snapshot())
		if err != nil {
			t.Fatal(err)
		}
		var snap Snapshot
		if err := json.Unmarshal(b, &snap); err != nil {
			t.Fatal(err)
		}
		q, problems, err := Restore(snap)
		if err != nil || len(problems) != 0 {
			t.Fatalf("Restore = %v, %v", problems, err)
		}
		return q
	}
	tests := []struct {
		name string
		pool func(t *testing.T) *Pool
	}{
		{"Restore(Snapshot())", func(t *testing.T) *Pool {
			q, problems, err := Restore(p.Snapshot())
			if err != nil || len(problems) != 0 {
				t.Fatalf("Restore = %v, %v", problems, err)
			}
			return q
		}},
		{"Clone()", func(*testing.T) *Pool { return p.Clone() }},
		{"JSON", fromJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.pool(t)
			if q.Spec().Owners != MACOwners {
				t.Fatalf("Spec().Owners = %v, want MAC", q.Spec().Owners)
			}
			if got, ok := q.AddrOf("5254.00aa.bbcc"); !ok || got != a {
				t.Errorf("AddrOf(5254.00aa.bbcc) = %v, %t; want %v", got, ok, a)
			}
			if owner, _ := q.Lookup(a); owner != canonMAC {
				t.Errorf("Lookup(%v) = %q, want %q", a, owner, canonMAC)
			}
			if _, err := q.Allocate("vm-1"); !errors.Is(err, ErrInvalidOwner) {
				t.Errorf("Allocate(vm-1) = %v, want ErrInvalidOwner", err)
			}
		})
	}
}

// TestRestoreMACOwners: Restore stores MAC owners canonically and reports
// two spellings of one MAC as one owner given twice.
func TestRestoreMACOwners(t *testing.T) {
	spec := Spec{Prefix: mpp("10.0.0.0/29"), Owners: MACOwners}
	p, problems, err := Restore(Snapshot{Spec: spec, Allocations: []Allocation{
		{mpa("10.0.0.5"), "5254.00aa.bbcc"},
		{mpa("10.0.0.2"), "52-54-00-AA-BB-CC"},
		{mpa("10.0.0.3"), "02:00:00:00:00:01"},
		{mpa("10.0.0.4"), "vm-1"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Allocation{{mpa("10.0.0.2"), canonMAC}, {mpa("10.0.0.3"), "02:00:00:00:00:01"}}
	if diff := cmp.Diff(want, p.Snapshot().Allocations, cmpAddrs); diff != "" {
		t.Errorf("allocations (-want +got):\n%s", diff)
	}
	var got []string
	for _, pr := range problems {
		got = append(got, fmt.Sprintf("%s %v", pr.Entry, sentinel(pr.Err)))
	}
	wantProblems := []string{"10.0.0.4 invalid owner", "10.0.0.5 owner already holds an address"}
	if diff := cmp.Diff(wantProblems, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestParseAllocatedMACOwners: ParseAllocated with MACOwners canonicalises
// owners and reports two spellings of one MAC as a duplicate.
func TestParseAllocatedMACOwners(t *testing.T) {
	spec := Spec{Prefix: mpp("10.0.0.0/29"), Owners: MACOwners}
	snap, problems := ParseAllocated(spec, map[string]string{
		"10.0.0.2": "52-54-00-AA-BB-CC",
		"10.0.0.5": "5254.00aa.bbcc",
		"10.0.0.3": "525400000001",
		"10.0.0.6": "vm-1",
	})
	want := []Allocation{{mpa("10.0.0.2"), canonMAC}, {mpa("10.0.0.3"), "52:54:00:00:00:01"}}
	if diff := cmp.Diff(want, snap.Allocations, cmpAddrs); diff != "" {
		t.Errorf("allocations (-want +got):\n%s", diff)
	}
	var got []string
	for _, pr := range problems {
		got = append(got, fmt.Sprintf("%s %v", pr.Entry, sentinel(pr.Err)))
	}
	wantProblems := []string{"10.0.0.5 owner already holds an address", "10.0.0.6 invalid owner"}
	if diff := cmp.Diff(wantProblems, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if len(problems) > 0 && !errors.Is(problems[0], ErrOwnerHasAddr) {
		t.Errorf("problem %v does not wrap ErrOwnerHasAddr", problems[0])
	}
}

// TestProblemOwnerAsGiven: Problem.Owner is "the owner (or marker) given
// with the entry", so a caller can find the entry it came from. A MAC
// spelled otherwise than the pool stores it must come back as spelled, for
// an owner given twice and for an address given twice alike.
func TestProblemOwnerAsGiven(t *testing.T) {
	spec := Spec{Prefix: mpp("10.0.0.0/29"), Owners: MACOwners}
	tests := []struct {
		name     string
		problems func() []Problem
		want     []string // "entry owner" of each problem
	}{
		{
			name: "ParseAllocated, owner given twice",
			problems: func() []Problem {
				_, problems := ParseAllocated(spec, map[string]string{
					"10.0.0.2": "52:54:00:aa:bb:cc",
					"10.0.0.5": "5254.00AA.BBCC",
				})
				return problems
			},
			want: []string{"10.0.0.5 5254.00AA.BBCC"},
		},
		{
			name: "Restore, owner given twice",
			problems: func() []Problem {
				_, problems, _ := Restore(Snapshot{Spec: spec, Allocations: []Allocation{
					{mpa("10.0.0.2"), "52:54:00:aa:bb:cc"},
					{mpa("10.0.0.5"), "5254.00AA.BBCC"},
				}})
				return problems
			},
			want: []string{"10.0.0.5 5254.00AA.BBCC"},
		},
		{
			name: "Restore, address given twice",
			problems: func() []Problem {
				_, problems, _ := Restore(Snapshot{Spec: spec, Allocations: []Allocation{
					{mpa("10.0.0.2"), "02:00:00:00:00:01"},
					{mpa("10.0.0.2"), "52-54-00-AA-BB-CC"},
				}})
				return problems
			},
			want: []string{"10.0.0.2 52-54-00-AA-BB-CC"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, pr := range tt.problems() {
				got = append(got, pr.Entry+" "+pr.Owner)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAddrOfDoesNotAllocate: AddrOf finds an owner in any spelling without
// allocating: the canonical spelling is a map hit, the others are
// re-spelled in a stack buffer.
func TestAddrOfDoesNotAllocate(t *testing.T) {
	p := macPool(t)
	if _, err := p.Allocate(canonMAC); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		owner  string
		wantOK bool
	}{
		{"canonical", canonMAC, true},
		{"upper-case hyphens", "52-54-00-AA-BB-CC", true},
		{"dots", "5254.00aa.bbcc", true},
		{"bare", "525400AABBCC", true},
		{"absent MAC, canonical", "52:54:00:00:00:09", false},
		{"absent MAC, other spelling", "52-54-00-00-00-09", false},
		{"not a MAC", "vm-1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := p.AddrOf(tt.owner); ok != tt.wantOK {
				t.Fatalf("AddrOf(%q) ok = %t, want %t", tt.owner, ok, tt.wantOK)
			}
			var sink netip.Addr
			n := testing.AllocsPerRun(100, func() { sink, _ = p.AddrOf(tt.owner) })
			if n != 0 {
				t.Errorf("AddrOf(%q): %v allocations per run, want 0", tt.owner, n)
			}
			_ = sink
		})
	}
}
