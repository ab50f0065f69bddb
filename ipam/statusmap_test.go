package ipam

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go4.org/netipx"
	"pgregory.net/rapid"
)

// markers returns n addresses from 'from' on, skipping skip, each mapped
// to marker: the obviously correct form of FormatAllocated's markers.
func markers(m map[string]string, from netip.Addr, n int, marker string, skip ...netip.Addr) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	for a := from; n > 0; a = a.Next() {
		skipped := false
		for _, s := range skip {
			skipped = skipped || a == s
		}
		if !skipped {
			m[a.String()] = marker
			n--
		}
	}
	return m
}

func TestFormatAllocated(t *testing.T) {
	// 10.0.0.2-10.0.0.12 of a /28; exclusions and reservations both inside
	// and outside that range.
	spec := Spec{
		Prefix:   mpp("10.0.0.0/28"),
		Start:    mpa("10.0.0.2"),
		End:      mpa("10.0.0.12"),
		Exclude:  []netipx.IPRange{rng("10.0.0.0", "10.0.0.4"), rng("10.0.0.8", "10.0.0.9")},
		Reserved: []netip.Addr{mpa("10.0.0.13"), mpa("10.0.0.6"), mpa("10.0.0.3"), mpa("10.0.0.1")},
	}
	v6 := Spec{
		Prefix:   mpp("2001:db8::/125"),
		Exclude:  []netipx.IPRange{rng("2001:db8::3", "2001:db8::4")},
		Reserved: []netip.Addr{mpa("2001:db8::1")},
	}
	tests := []struct {
		name string
		snap func(t *testing.T) Snapshot
		want map[string]string
	}{
		{
			name: "markers inside the range only",
			snap: func(t *testing.T) Snapshot {
				p := mustNew(t, spec)
				for _, a := range []struct{ addr, owner string }{{"10.0.0.5", "vm-a"}, {"10.0.0.7", "vm-b"}} {
					if err := p.AllocateAddr(mpa(a.addr), a.owner); err != nil {
						t.Fatal(err)
					}
				}
				return p.Snapshot()
			},
			want: map[string]string{
				"10.0.0.2": MarkerExcluded,
				"10.0.0.3": MarkerReserved, // excluded and reserved: reserved
				"10.0.0.4": MarkerExcluded,
				"10.0.0.5": "vm-a",
				"10.0.0.6": MarkerReserved,
				"10.0.0.7": "vm-b",
				"10.0.0.8": MarkerExcluded,
				"10.0.0.9": MarkerExcluded,
			},
		},
		{
			name: "an allocation wins over a marker",
			snap: func(*testing.T) Snapshot {
				return Snapshot{Spec: spec, Allocations: []Allocation{{mpa("10.0.0.6"), "on-reserved"}, {mpa("10.0.0.8"), "on-excluded"}}}
			},
			want: map[string]string{
				"10.0.0.2": MarkerExcluded,
				"10.0.0.3": MarkerReserved,
				"10.0.0.4": MarkerExcluded,
				"10.0.0.6": "on-reserved",
				"10.0.0.8": "on-excluded",
				"10.0.0.9": MarkerExcluded,
			},
		},
		{
			name: "IPv6",
			snap: func(t *testing.T) Snapshot {
				p := mustNew(t, v6)
				p.Allocate("vm-a")
				return p.Snapshot()
			},
			want: map[string]string{
				"2001:db8::1": MarkerReserved,
				"2001:db8::2": "vm-a",
				"2001:db8::3": MarkerExcluded,
				"2001:db8::4": MarkerExcluded,
			},
		},
		{
			name: "the IPv4-mapped block inside an exclusion has no marker",
			snap: func(t *testing.T) Snapshot {
				return mustNew(t, Spec{Prefix: mpp("::/0"), Exclude: []netipx.IPRange{rng("::fffe:ffff:fff0", "::1:0:0:f")}}).Snapshot()
			},
			want: markers(markers(nil, mpa("::fffe:ffff:fff0"), 16, MarkerExcluded), mpa("::1:0:0:0"), 16, MarkerExcluded),
		},
		{
			name: "no allocation, no marker",
			snap: func(t *testing.T) Snapshot { return mustNew(t, Spec{Prefix: mpp("10.0.0.0/31")}).Snapshot() },
			want: map[string]string{},
		},
		{
			name: "invalid spec: allocations only",
			snap: func(*testing.T) Snapshot {
				bad := spec
				bad.Start, bad.End = bad.End, bad.Start
				return Snapshot{Spec: bad, Allocations: []Allocation{{mpa("10.0.0.5"), "vm-a"}, {mpa("10.0.0.3"), "vm-b"}}}
			},
			want: map[string]string{"10.0.0.5": "vm-a", "10.0.0.3": "vm-b"},
		},
		{
			name: "zero Spec: allocations only",
			snap: func(*testing.T) Snapshot {
				return Snapshot{Allocations: []Allocation{{mpa("10.0.0.5"), "vm-a"}}}
			},
			want: map[string]string{"10.0.0.5": "vm-a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := tt.snap(t)
			got := FormatAllocated(snap)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FormatAllocated (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFormatAllocatedCapsExcludedMarkers: a big exclusion yields exactly
// MaxExcludedMarkers markers, the lowest excluded addresses of the range,
// and the map still parses back to the snapshot.
func TestFormatAllocatedCapsExcludedMarkers(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want map[string]string
	}{
		{
			name: "IPv4 /16 all excluded, one reserved inside",
			spec: Spec{
				Prefix:   mpp("10.0.0.0/16"),
				Exclude:  []netipx.IPRange{rng("10.0.0.0", "10.0.255.255")},
				Reserved: []netip.Addr{mpa("10.0.0.5")},
			},
			want: markers(map[string]string{"10.0.0.5": MarkerReserved}, mpa("10.0.0.1"), MaxExcludedMarkers, MarkerExcluded, mpa("10.0.0.5")),
		},
		{
			name: "IPv6 /80 of a /64",
			spec: Spec{
				Prefix:  mpp("2001:db8::/64"),
				Exclude: []netipx.IPRange{netipx.RangeOfPrefix(mpp("2001:db8::1:0:0:0/80"))},
			},
			want: markers(nil, mpa("2001:db8::1:0:0:0"), MaxExcludedMarkers, MarkerExcluded),
		},
		{
			name: "lowest across two exclusions, given highest first",
			spec: Spec{
				Prefix:  mpp("2001:db8::/64"),
				Exclude: []netipx.IPRange{rng("2001:db8::1:0", "2001:db8::1:ffff"), rng("2001:db8::1", "2001:db8::a")},
			},
			want: markers(markers(nil, mpa("2001:db8::1"), 10, MarkerExcluded), mpa("2001:db8::1:0"), MaxExcludedMarkers-10, MarkerExcluded),
		},
		{
			name: "exactly MaxExcludedMarkers excluded",
			spec: Spec{
				Prefix:  mpp("10.0.0.0/16"),
				Exclude: []netipx.IPRange{rng("10.0.1.0", "10.0.4.255")},
			},
			want: markers(nil, mpa("10.0.1.0"), MaxExcludedMarkers, MarkerExcluded),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustNew(t, tt.spec)
			snap := p.Snapshot()
			got := FormatAllocated(snap)
			n := 0
			for _, v := range got {
				if v == MarkerExcluded {
					n++
				}
			}
			if n != MaxExcludedMarkers {
				t.Errorf("%d %s markers, want %d", n, MarkerExcluded, MaxExcludedMarkers)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FormatAllocated (-want +got):\n%s", diff)
			}
			back, problems := ParseAllocated(snap.Spec, got)
			if len(problems) != 0 {
				t.Errorf("ParseAllocated problems: %v", problems)
			}
			if diff := cmp.Diff(snap, back, cmpSpecs); diff != "" {
				t.Errorf("ParseAllocated(FormatAllocated) (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFormatAllocatedRoundTrip: ParseAllocated(s.Spec, FormatAllocated(s))
// is s, with no problem, for snapshots of pools.
func TestFormatAllocatedRoundTrip(t *testing.T) {
	tests := []struct {
		name   string
		spec   Spec
		owners []string
	}{
		{"small", smallSpec(), []string{"a", "b", "c"}},
		{"small, empty", smallSpec(), nil},
		{"IPv4 /31", Spec{Prefix: mpp("10.0.0.4/31"), Reserved: []netip.Addr{mpa("10.0.0.4")}}, []string{"a"}},
		{"IPv4 /32", Spec{Prefix: mpp("10.0.0.9/32")}, []string{"a"}},
		{"IPv6 /127", Spec{Prefix: mpp("2001:db8::4/127"), Exclude: []netipx.IPRange{rng("2001:db8::5", "2001:db8::5")}}, []string{"a"}},
		{"IPv6 /128", Spec{Prefix: mpp("2001:db8::5/128")}, []string{"a"}},
		{"IPv6 ::/0 across the mapped block", Spec{Prefix: mpp("::/0"), Exclude: []netipx.IPRange{rng("::1", "::1:0:0:0")}}, []string{"a", "b"}},
		{"MAC owners spelled any way", Spec{Prefix: mpp("10.0.0.0/24"), Owners: MACOwners, Exclude: []netipx.IPRange{rng("10.0.0.1", "10.0.0.9")}}, []string{"52-54-00-AA-BB-01", "5254.00aa.bb02", "525400AABB03", "52:54:00:aa:bb:04"}},
		{"sequential, big exclusion", Spec{Prefix: mpp("2001:db8::/64"), Strategy: Sequential, Exclude: []netipx.IPRange{netipx.RangeOfPrefix(mpp("2001:db8::/80"))}}, []string{"a", "b"}},
		{"owners that look odd", Spec{Prefix: mpp("10.0.0.0/29")}, []string{" ", "excluded", "10.0.0.1", "ü"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustNew(t, tt.spec)
			for _, owner := range tt.owners {
				if _, err := p.Allocate(owner); err != nil {
					t.Fatal(err)
				}
			}
			checkFormatAllocatedRoundTrip(t, p.Snapshot())
		})
	}
}

// TestFormatAllocatedRoundTripRapid: the round trip holds for the Specs the
// property tests draw, with a few allocations.
func TestFormatAllocatedRoundTripRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		spec := genSpec(t)
		p, err := New(spec)
		if err != nil {
			t.Fatalf("New(genSpec()) error: %v", err)
		}
		for i := range rapid.IntRange(0, 20).Draw(t, "allocations") {
			if _, err := p.Allocate(fmt.Sprintf("02:00:00:00:00:%02x", i)); errors.Is(err, ErrExhausted) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
		checkFormatAllocatedRoundTrip(t, p.Snapshot())
	})
}

func checkFormatAllocatedRoundTrip(t interface {
	Helper()
	Fatalf(string, ...any)
}, snap Snapshot) {
	t.Helper()
	m := FormatAllocated(snap)
	got, problems := ParseAllocated(snap.Spec, m)
	if len(problems) != 0 {
		t.Fatalf("ParseAllocated(FormatAllocated(%v)) problems: %v", snap, problems)
	}
	if diff := cmp.Diff(snap, got, cmpSpecs); diff != "" {
		t.Fatalf("ParseAllocated(FormatAllocated()) (-want +got):\n%s", diff)
	}
	if len(m) < len(snap.Allocations) {
		t.Fatalf("FormatAllocated wrote %d entries for %d allocations", len(m), len(snap.Allocations))
	}
}

// TestParseAllocatedInvalidSpecEveryProblemWrapsErrInvalidSpec: with an
// invalid spec every entry is a Problem wrapping ErrInvalidSpec, including
// one whose key does not parse (which wraps ErrInvalidAddr as well): a
// caller that branches on ErrInvalidSpec must see every entry.
func TestParseAllocatedInvalidSpecEveryProblemWrapsErrInvalidSpec(t *testing.T) {
	m := map[string]string{
		"10.0.0.2":        "vm-a",
		"x":               "vm-b",
		"010.0.0.3":       "vm-c",
		" 10.0.0.4":       "vm-d",
		"::ffff:10.0.0.5": "vm-e",
		"fe80::1%eth0":    "vm-f",
		"":                "vm-g",
		"10.0.0.6":        "",
		"10.0.0.7":        MarkerExcluded,
		"10.0.0.8":        MarkerReserved,
	}
	unparsable := map[string]bool{"x": true, "010.0.0.3": true, " 10.0.0.4": true, "::ffff:10.0.0.5": true, "fe80::1%eth0": true, "": true}
	for _, tt := range []struct {
		name string
		spec Spec
	}{
		{"zero Spec", Spec{}},
		{"non-canonical prefix", Spec{Prefix: mpp("10.0.0.1/24")}},
		{"start after end", Spec{Prefix: mpp("10.0.0.0/24"), Start: mpa("10.0.0.9"), End: mpa("10.0.0.2")}},
		{"unknown owner kind", Spec{Prefix: mpp("10.0.0.0/24"), Owners: 5}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			snap, problems := ParseAllocated(tt.spec, m)
			if len(snap.Allocations) != 0 {
				t.Errorf("allocations %v, want none", snap.Allocations)
			}
			if len(problems) != len(m) {
				t.Fatalf("%d problems for %d entries: %v", len(problems), len(m), problems)
			}
			for _, pr := range problems {
				if !errors.Is(pr.Err, ErrInvalidSpec) {
					t.Errorf("problem %v does not wrap ErrInvalidSpec", pr)
				}
				if unparsable[pr.Entry] && !errors.Is(pr.Err, ErrInvalidAddr) {
					t.Errorf("problem %v does not wrap ErrInvalidAddr", pr)
				}
				if m[pr.Entry] != pr.Owner {
					t.Errorf("problem %v: owner %q, given %q", pr, pr.Owner, m[pr.Entry])
				}
			}
		})
	}
}
