package ipam

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go4.org/netipx"

	"github.com/vmnetkit/vmnetkit/internal/errtext"
	"github.com/vmnetkit/vmnetkit/internal/netiptest"
)

// refRange parses s the way the text rule describes it, with netip and
// netipx alone: a prefix when s holds a '/', from-to when it holds a '-',
// else one address; no zone, no IPv4-mapped address, no host bits.
func refRange(s string) (netipx.IPRange, bool) {
	plain := func(a netip.Addr) bool { return a.Zone() == "" && !a.Is4In6() }
	switch {
	case strings.Contains(s, "/"):
		p, err := netip.ParsePrefix(s)
		if err != nil || p != p.Masked() || !plain(p.Addr()) {
			return netipx.IPRange{}, false
		}
		return netipx.RangeOfPrefix(p), true
	case strings.Contains(s, "-"):
		r, err := netipx.ParseIPRange(s) // drops zones: look at them below
		if err != nil {
			return netipx.IPRange{}, false
		}
		from, to, _ := strings.Cut(s, "-")
		a, errA := netip.ParseAddr(from)
		b, errB := netip.ParseAddr(to)
		if errA != nil || errB != nil || !plain(a) || !plain(b) {
			return netipx.IPRange{}, false
		}
		return r, true
	}
	a, err := netip.ParseAddr(s)
	if err != nil || !plain(a) {
		return netipx.IPRange{}, false
	}
	return netipx.IPRangeFrom(a, a), true
}

// FuzzParseRange checks ParseRange against netip and netipx: it accepts
// exactly what they accept minus the text rule's refusals, with the same
// range, and FormatRange gives text that parses back to it.
func FuzzParseRange(f *testing.F) {
	for _, tt := range parseRangeTests {
		f.Add(tt.in)
	}
	for _, s := range []string{
		"::ffff:0:0/90", "::ffff:10.0.0.0/80", "fe80::1%a-fe80::2", "fe80::1%a/b", "fe80::1%a-b",
		"10.0.0.1-10.0.0.1%x", "1.2.3.4/32/32", "::/128", "255.255.255.255/32", "::1-::",
		strings.Repeat("0", 97), "::/80", "::8000:0:0/81", "::1-::ffff:0.0.0.1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRange(s)
		want, ok := refRange(s)
		if (err == nil) != ok {
			t.Fatalf("ParseRange(%q) error %v; netip/netipx accept it: %t (%v)", s, err, ok, want)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidAddr) {
				t.Fatalf("ParseRange(%q) error %q does not wrap ErrInvalidAddr", s, err)
			}
			if prefix := "ipam: ParseRange(" + errtext.Quote(s) + "): "; !strings.HasPrefix(err.Error(), prefix) {
				t.Fatalf("ParseRange(%q) error %q does not start with %q", s, err, prefix)
			}
			if r != (netipx.IPRange{}) {
				t.Fatalf("ParseRange(%q) = %v with its error", s, r)
			}
			return
		}
		if r != want {
			t.Fatalf("ParseRange(%q) = %v, netip/netipx give %v", s, r, want)
		}
		if !r.IsValid() {
			t.Fatalf("ParseRange(%q) = %v, not valid", s, r)
		}
		if !strings.ContainsAny(s, "/-") {
			if a, err := ParseAddr(s); err != nil || a != r.From() {
				t.Fatalf("ParseAddr(%q) = %v, %v; ParseRange gives %v", s, a, err, r)
			}
		}
		text := FormatRange(r)
		back, err := ParseRange(text)
		if err != nil || back != r {
			t.Fatalf("ParseRange(FormatRange(%v) = %q) = %v, %v", r, text, back, err)
		}
		if again := FormatRange(back); again != text {
			t.Fatalf("FormatRange not a fixed point: %q then %q", text, again)
		}
	})
}

// FuzzSpecText parses a SpecText of fuzzed fields: an error always wraps
// ErrInvalidSpec; a Spec is valid, makes a pool, and comes back from its
// Text and its JSON.
func FuzzSpecText(f *testing.F) {
	f.Add("10.20.0.0/24", "10.20.0.10", "10.20.0.200", "10.20.0.50-10.20.0.59,10.20.0.77,10.20.0.128/28", "10.20.0.2,10.20.0.1", "Sequential", "MAC")
	f.Add("fd00:1::/64", "", "", "fd00:1::100/120", "fd00:1::1,fd00:2::1", "Lowest", "Any")
	f.Add("10.0.0.4/31", "", "", "", "", "", "")
	f.Add("10.0.0.9/32", "", "", "10.0.0.9", "10.0.0.9", "", "")
	f.Add("2001:db8::4/127", "2001:db8::5", "", "", "", "", "")
	f.Add("2001:db8::5/128", "", "", "", "", "", "")
	f.Add("::/0", "", "", "::1-::1:0:0:0", "", "", "")
	f.Add("0.0.0.0/0", "", "", "0.0.0.0/1", "", "", "")
	f.Add("", "", "", "", "", "", "")                                           // cidr required
	f.Add("10.20.0.1", "", "", "", "", "", "")                                  // not a prefix
	f.Add("10.20.0.5/24", "x", "10.20.0.300", "", "", "", "")                   // host bits, bad start, bad end
	f.Add("::ffff:10.0.0.0/120", "", "", "", "", "", "")                        // mapped cidr
	f.Add("10.20.0.0/24", "::ffff:10.20.0.10", "", "10.20.0.77/24", "", "", "") // mapped start, host bits
	f.Add("fe80::/64", "fe80::1%eth0", "", "fe80::9-fe80::1", "fe80::2%eth0", "", "")
	f.Add("10.20.0.0/24", "", "", ",", "router", "lowest", "mac")
	f.Add("10.20.0.0/24", "10.20.0.200", "10.20.0.10", "", "", "", "") // start after end
	f.Add("10.20.0.0/24", "10.20.0.0", "10.20.0.255", "", "", "", "")  // network and broadcast
	f.Add("10.20.0.0/24", "", "", "10.21.0.0/24", "2001:db8::1", "", "")
	f.Fuzz(func(t *testing.T, cidr, start, end, exclude, reserved, strategy, owners string) {
		text := SpecText{
			CIDR: cidr, Start: start, End: end,
			Exclude: netiptest.SplitList(exclude), Reserved: netiptest.SplitList(reserved),
			Strategy: strategy, Owners: owners,
			// Both rules for the subnet ends, from one input.
			AllocateSubnetEnds: len(cidr)%2 == 1,
		}
		spec, err := text.Parse()
		if err != nil {
			if !errors.Is(err, ErrInvalidSpec) {
				t.Fatalf("Parse(%+v) error %q does not wrap ErrInvalidSpec", text, err)
			}
			return
		}
		if err := spec.Validate(); err != nil {
			t.Fatalf("Parse(%+v) = %+v, which does not validate: %v", text, spec, err)
		}
		if _, err := New(spec); err != nil {
			t.Fatalf("New(Parse(%+v)) error: %v", text, err)
		}
		back, err := spec.Text().Parse()
		if err != nil {
			t.Fatalf("Parse(Text()) of %+v error: %v", spec.Text(), err)
		}
		if diff := cmp.Diff(spec, back, cmpSpecs); diff != "" {
			t.Fatalf("Parse(Text()) (-want +got):\n%s", diff)
		}
		b, err := json.Marshal(spec)
		if err != nil {
			t.Fatalf("json.Marshal(%+v) error: %v", spec, err)
		}
		var fromJSON Spec
		if err := json.Unmarshal(b, &fromJSON); err != nil {
			t.Fatalf("json.Unmarshal(%s) error: %v", b, err)
		}
		if diff := cmp.Diff(spec, fromJSON, cmpSpecs); diff != "" {
			t.Fatalf("json.Unmarshal(json.Marshal(Spec)) (-want +got):\n%s", diff)
		}
	})
}

// maxCount is 2^128-1.
var maxCount = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))

// FuzzCountText checks ParseCount against math/big: it accepts exactly the
// decimals String writes, from 0 to 2^128-1, and String gives the input back.
func FuzzCountText(f *testing.F) {
	for _, s := range []string{
		"0", "1", "254", "18446744073709551615", count2to64, count2to128m1, count2to128,
		"340282366920938463463374607431768211460", strings.Repeat("9", 40), strings.Repeat("9", 200),
		"", "00", "01", "+1", "-1", " 1", "1 ", "1e3", "0x1", "1_0", "١",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCount(s)
		canonical := s != "" && strings.Trim(s, "0123456789") == "" && (s == "0" || s[0] != '0')
		ref, _ := new(big.Int).SetString(s, 10)
		wantOK := canonical && ref != nil && ref.Cmp(maxCount) <= 0
		if (err == nil) != wantOK {
			t.Fatalf("ParseCount(%q) error %v; want success %t", s, err, wantOK)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "ipam: ParseCount("+errtext.Quote(s)+"): ") {
				t.Fatalf("ParseCount(%q) error %q does not quote the input", s, err)
			}
			return
		}
		if got := c.String(); got != s {
			t.Fatalf("ParseCount(%q).String() = %q", s, got)
		}
		if b, err := c.MarshalText(); err != nil || string(b) != s {
			t.Fatalf("ParseCount(%q).MarshalText() = %q, %v", s, b, err)
		}
		v, exact := c.Uint64()
		if exact != ref.IsUint64() || (exact && v != ref.Uint64()) || (!exact && v != 1<<64-1) {
			t.Fatalf("ParseCount(%q).Uint64() = %d, %t", s, v, exact)
		}
		var back Count
		if err := back.UnmarshalText([]byte(s)); err != nil || back != c {
			t.Fatalf("UnmarshalText(%q) = %v, %v", s, back, err)
		}
	})
}

// FuzzSnapshotJSON unmarshals arbitrary bytes as a Snapshot. Whatever
// unmarshals and marshals again comes back equal (allocations in address
// order) and marshals to the same bytes; Restore never panics on it.
func FuzzSnapshotJSON(f *testing.F) {
	small := `{"spec":{"cidr":"10.0.0.0/29","exclude":["10.0.0.3-10.0.0.4"],"reserved":["10.0.0.1"]},` +
		`"allocations":[{"addr":"10.0.0.2","owner":"vm-b"},{"addr":"10.0.0.5","owner":"vm-a"}]}`
	for _, s := range []string{
		small,
		`{"spec":{"cidr":"10.0.0.0/29"},"allocations":[{"addr":"10.0.0.6","owner":"c"},{"addr":"10.0.0.2","owner":"b"},{"addr":"10.0.0.2","owner":"a"}]}`,
		`{"spec":{"cidr":"2001:db8::/64","strategy":"Sequential","owners":"MAC"},"allocations":[{"addr":"2001:db8::1","owner":"52-54-00-AA-BB-CC"}]}`,
		`{"spec":{"cidr":"::/0","exclude":["::1-::1:0:0:0"]},"allocations":[]}`,
		`{"spec":{"cidr":"10.0.0.0/29"},"allocations":[{"addr":"","owner":""}]}`,
		`{"spec":{"cidr":"10.0.0.0/29"},"allocations":[{"addr":"::ffff:10.0.0.2","owner":"a"}]}`,
		`{"spec":{"cidr":"10.0.0.0/29"},"allocations":[{"addr":"10.0.0.2","owner":"vm-\ud800\u00ff"}]}`,
		`{"spec":{"cidr":"10.0.0.0/29","reserved":["192.0.2.1"]},"allocations":null}`,
		`{"Spec":{"CIDR":"10.0.0.0/29","Exclude":["10.0.0.0/30"]},"Allocations":[{"Addr":"10.0.0.5","Owner":"x"}]}`,
		`{"spec":{"cidr":"10.0.0.1/24"}}`,
		`{"spec":null}`,
		`{"allocations":[]}`,
		`{}`,
		`null`,
		`[]`,
		`{"spec":{"cidr":"10.0.0.0/29","strategy":"sequential"}}`,
		"\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s1 Snapshot
		if err := json.Unmarshal(b, &s1); err != nil {
			return
		}
		Restore(s1) // must not panic
		b2, err := json.Marshal(s1)
		if err != nil {
			if !errors.Is(err, ErrInvalidSpec) && !errors.Is(err, ErrInvalidOwner) {
				t.Fatalf("json.Marshal(%+v) error %v wraps neither ErrInvalidSpec nor ErrInvalidOwner", s1, err)
			}
			return
		}
		var s2 Snapshot
		if err := json.Unmarshal(b2, &s2); err != nil {
			t.Fatalf("json.Unmarshal(%s), of what json.Marshal wrote, error: %v", b2, err)
		}
		want := Snapshot{Spec: s1.Spec, Allocations: slices.Clone(s1.Allocations)}
		slices.SortStableFunc(want.Allocations, cmpAlloc)
		if diff := cmp.Diff(want, s2, cmpSpecs); diff != "" {
			t.Fatalf("json.Unmarshal(json.Marshal(s)) (-want +got):\n%s", diff)
		}
		b3, err := json.Marshal(s2)
		if err != nil {
			t.Fatalf("json.Marshal of a round-tripped Snapshot error: %v", err)
		}
		if !bytes.Equal(b2, b3) {
			t.Fatalf("json.Marshal not a fixed point:\n%s\n%s", b2, b3)
		}
	})
}

// FuzzParseDottedQuad checks the status-map key shortcut against
// netip.ParseAddr: it accepts exactly the canonical IPv4 addresses, with
// their value.
func FuzzParseDottedQuad(f *testing.F) {
	for _, s := range []string{"10.0.0.1", "0.0.0.0", "255.255.255.255", "256.0.0.1", "01.0.0.1", "1.2.3", "1.2.3.4.5",
		"1..2.3", ".1.2.3", "1.2.3.", "1.2.3.4 ", "0.0.0.00", "1000.1.1.1", "::1", "1.2.3.4%eth0", "00.0.0.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := parseDottedQuad(s)
		a, err := netip.ParseAddr(s)
		canonical := err == nil && a.Is4() && a.String() == s
		if ok != canonical {
			t.Fatalf("parseDottedQuad(%q) ok = %v; netip.ParseAddr = %v, %v", s, ok, a, err)
		}
		if ok && netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}) != a {
			t.Fatalf("parseDottedQuad(%q) = %#x, want %v", s, v, a)
		}
	})
}
