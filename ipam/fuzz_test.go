package ipam

import (
	"errors"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"go4.org/netipx"
)

// FuzzParseAllocated feeds ParseAllocated a status map from fuzzed lines
// ("key=value") and checks that every entry is accounted for, the input is
// untouched and the snapshot restores without problems.
func FuzzParseAllocated(f *testing.F) {
	f.Add("10.0.0.2=a\n10.0.0.1=RESERVED\n10.0.0.3=EXCLUDED\n010.0.0.5=b", false)
	f.Add("10.0.0.2=a\n10.0.0.5=a\n10.0.0.6=\n 10.0.0.4=c\n10.0.0.9=d", false)
	f.Add("2001:db8::2=a\n2001:db8::1=RESERVED\nfe80::1%eth0=b\n2001:DB8::3=c", true)
	f.Add("::ffff:10.0.0.2=a\n10.0.0.7=b\n=c\nx=EXCLUDED", false)
	f.Fuzz(func(t *testing.T, lines string, v6 bool) {
		spec := smallSpec()
		if v6 {
			spec = Spec{
				Prefix:   mpp("2001:db8::/125"),
				Exclude:  []netipx.IPRange{rng("2001:db8::3", "2001:db8::4")},
				Reserved: []netip.Addr{mpa("2001:db8::1")},
			}
		}
		m := map[string]string{}
		for _, line := range strings.Split(lines, "\n") {
			k, v, _ := strings.Cut(line, "=")
			m[k] = v
		}
		orig := maps.Clone(m)
		snap, problems := ParseAllocated(spec, m)
		if !maps.Equal(orig, m) {
			t.Fatal("input map modified")
		}
		if !slices.IsSortedFunc(snap.Allocations, cmpAlloc) {
			t.Fatalf("allocations not sorted: %v", snap.Allocations)
		}
		markers := 0
		for _, v := range m {
			if v == MarkerExcluded || v == MarkerReserved {
				markers++
			}
		}
		accepted := len(m) - len(problems) - len(snap.Allocations)
		if accepted < 0 || accepted > markers {
			t.Fatalf("%d entries, %d problems, %d allocations, %d markers", len(m), len(problems), len(snap.Allocations), markers)
		}
		for _, pr := range problems {
			if _, ok := m[pr.Entry]; !ok || m[pr.Entry] != pr.Owner || pr.Err == nil {
				t.Fatalf("problem %v does not match an entry", pr)
			}
		}
		sorted := slices.Clone(problems)
		sortProblems(sorted)
		if !slices.EqualFunc(sorted, problems, func(a, b Problem) bool { return a.Entry == b.Entry && a.Owner == b.Owner }) {
			t.Fatal("problems not sorted")
		}
		p, rp, err := Restore(snap)
		if err != nil || len(rp) != 0 || p.Len() != len(snap.Allocations) {
			t.Fatalf("Restore(ParseAllocated) = %v, %v", rp, err)
		}
	})
}

// FuzzNew builds a Spec from fuzzed strings; whatever New accepts must
// behave: allocations pass Check, Stats add up, Restore round-trips.
func FuzzNew(f *testing.F) {
	f.Add("10.0.0.0/29", "", "", "10.0.0.3-10.0.0.4", "10.0.0.1", uint8(0), 5)
	f.Add("10.0.0.0/31", "10.0.0.1", "", "", "", uint8(1), 3)
	f.Add("2001:db8::/64", "2001:db8::10", "2001:db8::ff", "2001:db8::10-2001:db8::20", "2001:db8::21", uint8(0), 40)
	f.Add("::/0", "", "", "::1-::ffff", "::", uint8(1), 5)
	f.Add("0.0.0.0/0", "", "", "0.0.0.0-255.255.255.255", "", uint8(0), 2)
	f.Add("10.0.0.1/24", "10.0.0.0", "10.0.0.300", "10.0.0.9-10.0.0.8", "fe80::1%eth0", uint8(3), 1)
	f.Fuzz(func(t *testing.T, prefix, start, end, exclude, reserved string, strategy uint8, n int) {
		spec := Spec{Strategy: Strategy(strategy)}
		spec.Prefix, _ = netip.ParsePrefix(prefix)
		spec.Start, _ = netip.ParseAddr(start)
		spec.End, _ = netip.ParseAddr(end)
		for _, s := range strings.Split(exclude, ",") {
			if r, err := netipx.ParseIPRange(s); err == nil {
				spec.Exclude = append(spec.Exclude, r)
			}
		}
		for _, s := range strings.Split(reserved, ",") {
			if a, err := netip.ParseAddr(s); err == nil {
				spec.Reserved = append(spec.Reserved, a)
			}
		}
		p, err := New(spec)
		if err != nil {
			if !errors.Is(err, ErrInvalidSpec) || spec.Validate() == nil {
				t.Fatalf("New error %v, Validate %v", err, spec.Validate())
			}
			return
		}
		n = min(max(n, 0), 100)
		for i := range n {
			a, err := p.Allocate(strings.Repeat("o", i+1))
			if errors.Is(err, ErrExhausted) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Check(a); err != nil {
				t.Fatalf("allocated %v: %v", a, err)
			}
		}
		r := p.Range()
		for _, a := range []netip.Addr{r.From(), r.To(), r.From().Prev(), r.To().Next(), spec.Start, spec.End} {
			err := p.AllocateAddr(a, "probe")
			if cerr := p.Check(a); cerr != nil && (err == nil || sentinel(err) != sentinel(cerr)) {
				t.Fatalf("AllocateAddr(%v) = %v but Check = %v", a, err, cerr)
			}
			p.ReleaseOwner("probe")
		}
		st := p.Stats()
		sum := st.Allocated.v.Add(st.Excluded.v).Add(st.Reserved.v).Add(st.Free.v)
		if sum != st.Size.v || st.Size.v.IsZero() || st.Size.v.Less(st.Free.v) {
			t.Fatalf("Stats do not add up: %v", statsStrings(st))
		}
		q, problems, err := Restore(p.Snapshot())
		if err != nil || len(problems) != 0 || q.Stats() != st {
			t.Fatalf("Restore(Snapshot()) = %v, %v", problems, err)
		}
	})
}
