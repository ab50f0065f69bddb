package ipam

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"go4.org/netipx"
)

func TestValidateRejects(t *testing.T) {
	v4 := mpp("10.0.0.0/24")
	tests := []struct {
		name  string
		spec  Spec
		quote string // the offending value, quoted in the message
	}{
		{"zero spec", Spec{}, `"invalid Prefix"`},
		{"non-canonical prefix", Spec{Prefix: mpp("10.0.0.1/24")}, `"10.0.0.1/24"`},
		{"unknown strategy", Spec{Prefix: v4, Strategy: 7}, `"Strategy(7)"`},
		{"start outside prefix", Spec{Prefix: v4, Start: mpa("10.0.1.5")}, `"10.0.1.5"`},
		{"start is network address", Spec{Prefix: v4, Start: mpa("10.0.0.0")}, `"10.0.0.0"`},
		{"end is broadcast address", Spec{Prefix: v4, End: mpa("10.0.0.255")}, `"10.0.0.255"`},
		{"start of other family", Spec{Prefix: v4, Start: mpa("::1")}, `"::1"`},
		{"start IPv4-mapped", Spec{Prefix: v4, Start: mpa("::ffff:10.0.0.5")}, `"::ffff:10.0.0.5"`},
		{"IPv4-mapped prefix", Spec{Prefix: mpp("::ffff:10.0.0.0/120")}, `write 10.0.0.0/24`},
		{"v6 start IPv4-mapped", Spec{Prefix: mpp("::/64"), Start: mpa("::ffff:10.0.0.5")}, `never hands out ::ffff:0:0/96`},
		{"reserved IPv4-mapped", Spec{Prefix: mpp("::/64"), Reserved: []netip.Addr{mpa("::ffff:10.0.0.5")}}, `"::ffff:10.0.0.5"`},
		{"exclude ends IPv4-mapped", Spec{Prefix: mpp("::/64"), Exclude: []netipx.IPRange{rng("::1", "::ffff:0.0.0.1")}}, `end the range at ::fffe:ffff:ffff`},
		{"unknown owner kind", Spec{Prefix: v4, Owners: 9}, `"OwnerKind(9)"`},
		{"start with zone", Spec{Prefix: mpp("fe80::/64"), Start: mpa("fe80::5%eth0")}, `"fe80::5%eth0"`},
		{"end with zone", Spec{Prefix: mpp("fe80::/64"), End: mpa("fe80::5%eth0")}, `"fe80::5%eth0"`},
		{"start after end", Spec{Prefix: v4, Start: mpa("10.0.0.9"), End: mpa("10.0.0.8")}, `"10.0.0.9"`},
		{"v6 start is subnet-router anycast", Spec{Prefix: mpp("2001:db8::/64"), Start: mpa("2001:db8::")}, `"2001:db8::"`},
		{"exclude invalid", Spec{Prefix: v4, Exclude: []netipx.IPRange{{}}}, `"zero IPRange"`},
		{"exclude reversed", Spec{Prefix: v4, Exclude: []netipx.IPRange{rng("10.0.0.9", "10.0.0.8")}}, `"invalid IPRange"`},
		{"exclude outside prefix", Spec{Prefix: v4, Exclude: []netipx.IPRange{rng("10.0.0.250", "10.0.1.3")}}, `"10.0.0.250-10.0.1.3"`},
		{"exclude other family", Spec{Prefix: v4, Exclude: []netipx.IPRange{rng("::1", "::2")}}, `"::1-::2"`},
		{"reserved outside prefix", Spec{Prefix: v4, Reserved: []netip.Addr{mpa("10.0.0.1"), mpa("192.168.0.1")}}, `"192.168.0.1"`},
		{"reserved zero", Spec{Prefix: v4, Reserved: []netip.Addr{{}}}, `"invalid IP"`},
		{"reserved other family", Spec{Prefix: v4, Reserved: []netip.Addr{mpa("2001:db8::1")}}, `"2001:db8::1"`},
		{"reserved with zone", Spec{Prefix: mpp("fe80::/64"), Reserved: []netip.Addr{mpa("fe80::1%eth0")}}, `"fe80::1%eth0"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.spec.Validate()
			if !errors.Is(err, ErrInvalidSpec) {
				t.Fatalf("Validate() = %v, want ErrInvalidSpec", err)
			}
			if !strings.Contains(err.Error(), tt.quote) || !strings.HasPrefix(err.Error(), "ipam: spec ") {
				t.Errorf("Validate() = %q, want it to quote %s", err, tt.quote)
			}
			if _, err := New(tt.spec); !errors.Is(err, ErrInvalidSpec) {
				t.Errorf("New() error = %v, want ErrInvalidSpec", err)
			}
			if _, _, err := Restore(Snapshot{Spec: tt.spec}); !errors.Is(err, ErrInvalidSpec) {
				t.Errorf("Restore() error = %v, want ErrInvalidSpec", err)
			}
		})
	}
}

func TestUsableRange(t *testing.T) {
	tests := []struct {
		spec        Spec
		first, last string
		size        string
	}{
		{Spec{Prefix: mpp("10.0.0.0/24")}, "10.0.0.1", "10.0.0.254", "254"},
		{Spec{Prefix: mpp("10.0.0.0/30")}, "10.0.0.1", "10.0.0.2", "2"},
		{Spec{Prefix: mpp("10.0.0.0/31")}, "10.0.0.0", "10.0.0.1", "2"},
		{Spec{Prefix: mpp("10.0.0.7/32")}, "10.0.0.7", "10.0.0.7", "1"},
		{Spec{Prefix: mpp("0.0.0.0/0")}, "0.0.0.1", "255.255.255.254", "4294967294"},
		{Spec{Prefix: mpp("2001:db8::/64")}, "2001:db8::1", "2001:db8::ffff:ffff:ffff:ffff", "18446744073709551615"},
		{Spec{Prefix: mpp("2001:db8::/126")}, "2001:db8::1", "2001:db8::3", "3"},
		{Spec{Prefix: mpp("2001:db8::/127")}, "2001:db8::", "2001:db8::1", "2"},
		{Spec{Prefix: mpp("2001:db8::1/128")}, "2001:db8::1", "2001:db8::1", "1"},
		// 2^128-1 less the 2^32 IPv4-mapped addresses, which are never usable.
		{Spec{Prefix: mpp("::/0")}, "::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "340282366920938463463374607427473244159"},
		// ::/80 ends with the IPv4-mapped block: the range stops before it.
		{Spec{Prefix: mpp("::/80")}, "::1", "::fffe:ffff:ffff", "281470681743359"},
		{Spec{Prefix: mpp("10.0.0.0/24"), Start: mpa("10.0.0.10"), End: mpa("10.0.0.19")}, "10.0.0.10", "10.0.0.19", "10"},
	}
	for _, tt := range tests {
		t.Run(tt.spec.Prefix.String(), func(t *testing.T) {
			p, err := New(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := p.Range(), rng(tt.first, tt.last); got != want {
				t.Errorf("Range() = %s, want %s", got, want)
			}
			if got := p.Stats().Size.String(); got != tt.size {
				t.Errorf("Size = %s, want %s", got, tt.size)
			}
			if p.Prefix() != tt.spec.Prefix {
				t.Errorf("Prefix() = %s, want %s", p.Prefix(), tt.spec.Prefix)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	spec := Spec{
		Prefix:   mpp("10.0.0.0/24"),
		Start:    mpa("10.0.0.10"),
		End:      mpa("10.0.0.100"),
		Exclude:  []netipx.IPRange{rng("10.0.0.2", "10.0.0.12"), rng("10.0.0.50", "10.0.0.59")},
		Reserved: []netip.Addr{mpa("10.0.0.55"), mpa("10.0.0.20"), mpa("10.0.0.200")},
	}
	p, err := New(spec)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		addr netip.Addr
		want error
	}{
		{mpa("10.0.0.13"), nil},
		{mpa("10.0.0.100"), nil},
		{mpa("10.0.0.9"), ErrOutOfRange},
		{mpa("10.0.0.101"), ErrOutOfRange},
		{mpa("10.0.0.200"), ErrOutOfRange}, // reserved, but outside [Start, End]
		{mpa("10.0.1.13"), ErrOutOfRange},
		{mpa("::ffff:10.0.0.13"), ErrOutOfRange},
		{netip.Addr{}, ErrOutOfRange},
		{mpa("10.0.0.10"), ErrExcluded},
		{mpa("10.0.0.12"), ErrExcluded},
		{mpa("10.0.0.59"), ErrExcluded},
		{mpa("10.0.0.20"), ErrReserved},
		{mpa("10.0.0.55"), ErrReserved}, // reserved and excluded: reserved wins
	}
	for _, tt := range tests {
		t.Run(tt.addr.String(), func(t *testing.T) {
			err := p.Check(tt.addr)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Check = %v, want %v", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), `ipam: check "`+tt.addr.String()+`" in 10.0.0.0/24: `) {
				t.Errorf("Check = %q: want the op, the quoted address and the prefix", err)
			}
		})
	}
	// Excluded: 10.0.0.10-12 (3) + 10.0.0.50-59 minus reserved .55 (9) = 12;
	// reserved inside the range: .20 and .55.
	st := p.Stats()
	if got := [5]string{st.Size.String(), st.Allocated.String(), st.Excluded.String(), st.Reserved.String(), st.Free.String()}; got != [5]string{"91", "0", "12", "2", "77"} {
		t.Errorf("Stats = %v", got)
	}
}

func TestSpecIsCopied(t *testing.T) {
	spec := Spec{Prefix: mpp("10.0.0.0/24"), Reserved: []netip.Addr{mpa("10.0.0.1")}}
	p, err := New(spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.Reserved[0] = mpa("10.0.0.2")
	if got := p.Spec().Reserved[0]; got != mpa("10.0.0.1") {
		t.Fatalf("pool's spec changed with the caller's slice: %s", got)
	}
	p.Spec().Reserved[0] = mpa("10.0.0.3")
	if got := p.Spec().Reserved[0]; got != mpa("10.0.0.1") {
		t.Fatalf("Spec() shares its slice: %s", got)
	}
}

func TestStrategyString(t *testing.T) {
	for s, want := range map[Strategy]string{Lowest: "Lowest", Sequential: "Sequential", 9: "Strategy(9)"} {
		if got := s.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", s, got, want)
		}
	}
}
