package ipam

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go4.org/netipx"
	"pgregory.net/rapid"
)

func TestSpecTextParse(t *testing.T) {
	tests := []struct {
		name string
		text SpecText
		want Spec
	}{
		{
			name: "every field",
			text: SpecText{
				CIDR: "10.20.0.0/24", Start: "10.20.0.10", End: "10.20.0.200",
				Exclude:  []string{"10.20.0.50-10.20.0.59", "10.20.0.77", "10.20.0.128/28"},
				Reserved: []string{"10.20.0.2", "10.20.0.1"},
				Strategy: "Sequential", Owners: "MAC",
			},
			want: Spec{
				Prefix: mpp("10.20.0.0/24"), Start: mpa("10.20.0.10"), End: mpa("10.20.0.200"),
				Exclude:  []netipx.IPRange{rng("10.20.0.50", "10.20.0.59"), rng("10.20.0.77", "10.20.0.77"), rng("10.20.0.128", "10.20.0.143")},
				Reserved: []netip.Addr{mpa("10.20.0.2"), mpa("10.20.0.1")},
				Strategy: Sequential, Owners: MACOwners,
			},
		},
		{
			name: "IPv6 every field",
			text: SpecText{
				CIDR: "fd00:1::/64", Start: "fd00:1::10", End: "fd00:1::ffff",
				Exclude:  []string{"fd00:1::100/120", "fd00:1::20-fd00:1::2f"},
				Reserved: []string{"fd00:1::1"},
				Strategy: "Lowest", Owners: "Any",
			},
			want: Spec{
				Prefix: mpp("fd00:1::/64"), Start: mpa("fd00:1::10"), End: mpa("fd00:1::ffff"),
				Exclude:  []netipx.IPRange{rng("fd00:1::100", "fd00:1::1ff"), rng("fd00:1::20", "fd00:1::2f")},
				Reserved: []netip.Addr{mpa("fd00:1::1")},
			},
		},
		{name: "CIDR only", text: SpecText{CIDR: "10.0.0.0/29"}, want: Spec{Prefix: mpp("10.0.0.0/29")}},
		{name: "IPv4 /31", text: SpecText{CIDR: "10.0.0.4/31", Start: "10.0.0.4"}, want: Spec{Prefix: mpp("10.0.0.4/31"), Start: mpa("10.0.0.4")}},
		{name: "IPv4 /32", text: SpecText{CIDR: "10.0.0.9/32"}, want: Spec{Prefix: mpp("10.0.0.9/32")}},
		{name: "IPv6 /127", text: SpecText{CIDR: "2001:db8::4/127", End: "2001:db8::5"}, want: Spec{Prefix: mpp("2001:db8::4/127"), End: mpa("2001:db8::5")}},
		{name: "IPv6 /128", text: SpecText{CIDR: "2001:db8::5/128"}, want: Spec{Prefix: mpp("2001:db8::5/128")}},
		{name: "IPv6 /0", text: SpecText{CIDR: "::/0"}, want: Spec{Prefix: mpp("::/0")}},
		{name: "IPv6 in upper case", text: SpecText{CIDR: "FD00:1::/64", Reserved: []string{"FD00:1::A"}}, want: Spec{Prefix: mpp("fd00:1::/64"), Reserved: []netip.Addr{mpa("fd00:1::a")}}},
		{
			name: "reserved outside the CIDR is left out",
			text: SpecText{CIDR: "10.20.0.0/24", Reserved: []string{"192.0.2.1", "10.20.0.1", "10.20.1.1"}},
			want: Spec{Prefix: mpp("10.20.0.0/24"), Reserved: []netip.Addr{mpa("10.20.0.1")}},
		},
		{
			name: "reserved of the other family is left out (a dual-stack router)",
			text: SpecText{CIDR: "10.20.0.0/24", Reserved: []string{"2001:db8::1", "10.20.0.1"}},
			want: Spec{Prefix: mpp("10.20.0.0/24"), Reserved: []netip.Addr{mpa("10.20.0.1")}},
		},
		{
			name: "IPv6 reserved outside the CIDR is left out",
			text: SpecText{CIDR: "fd00:1::/64", Reserved: []string{"fd00:2::1"}},
			want: Spec{Prefix: mpp("fd00:1::/64")},
		},
		{
			name: "reserved outside start-end but inside the CIDR is kept",
			text: SpecText{CIDR: "10.20.0.0/24", Start: "10.20.0.10", Reserved: []string{"10.20.0.1"}},
			want: Spec{Prefix: mpp("10.20.0.0/24"), Start: mpa("10.20.0.10"), Reserved: []netip.Addr{mpa("10.20.0.1")}},
		},
		{
			name: "empty lists",
			text: SpecText{CIDR: "10.0.0.0/29", Exclude: []string{}, Reserved: []string{}},
			want: Spec{Prefix: mpp("10.0.0.0/29")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.text.Parse()
			if err != nil {
				t.Fatalf("Parse() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmpSpecs); diff != "" {
				t.Errorf("Parse() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSpecTextParseErrors(t *testing.T) {
	ok := SpecText{CIDR: "10.20.0.0/24"}
	with := func(f func(*SpecText)) SpecText {
		t := ok
		f(&t)
		return t
	}
	tests := []struct {
		name    string
		text    SpecText
		want    string // the whole message
		addrErr bool   // wraps ErrInvalidAddr too (an address did not parse)
	}{
		{
			name: "cidr empty",
			text: SpecText{},
			want: `ipam: spec cidr "": required: invalid spec`,
		},
		{
			name: "cidr not a prefix",
			text: SpecText{CIDR: "10.20.0.1"},
			want: `ipam: spec cidr "10.20.0.1": not a prefix (want address/length): invalid spec`,
		},
		{
			name:    "cidr with host bits set",
			text:    SpecText{CIDR: "10.20.0.5/24"},
			want:    `ipam: spec cidr "10.20.0.5/24": prefix has host bits set (want 10.20.0.0/24): invalid address: invalid spec`,
			addrErr: true,
		},
		{
			name:    "cidr IPv4-mapped",
			text:    SpecText{CIDR: "::ffff:10.20.0.0/120"},
			want:    `ipam: spec cidr "::ffff:10.20.0.0/120": IPv4-mapped IPv6 prefix: write 10.20.0.0/24: invalid address: invalid spec`,
			addrErr: true,
		},
		{
			name:    "cidr that does not parse",
			text:    SpecText{CIDR: "10.20.0.0/33"},
			want:    `ipam: spec cidr "10.20.0.0/33": prefix length out of range: invalid address: invalid spec`,
			addrErr: true,
		},
		{
			name:    "start",
			text:    with(func(t *SpecText) { t.Start = "10.20.0.300" }),
			want:    `ipam: spec start "10.20.0.300": IPv4 field has value >255: invalid address: invalid spec`,
			addrErr: true,
		},
		{
			name:    "start IPv4-mapped",
			text:    with(func(t *SpecText) { t.Start = "::ffff:10.20.0.10" }),
			want:    `ipam: spec start "::ffff:10.20.0.10": IPv4-mapped IPv6 address: write 10.20.0.10: invalid address: invalid spec`,
			addrErr: true,
		},
		{
			name:    "end with a zone",
			text:    SpecText{CIDR: "fe80::/64", End: "fe80::ff%eth0"},
			want:    `ipam: spec end "fe80::ff%eth0": has a zone: invalid address: invalid spec`,
			addrErr: true,
		},
		{
			name:    "end with a space",
			text:    with(func(t *SpecText) { t.End = "10.20.0.200 " }),
			want:    `ipam: spec end "10.20.0.200 ": unexpected character (at " "): invalid address: invalid spec`,
			addrErr: true,
		},
		{
			name:    "exclude[2] with host bits set",
			text:    with(func(t *SpecText) { t.Exclude = []string{"10.20.0.50-10.20.0.59", "10.20.0.77", "10.20.0.77/24"} }),
			want:    `ipam: spec exclude[2] "10.20.0.77/24": prefix has host bits set (want 10.20.0.0/24): invalid address: invalid spec`,
			addrErr: true,
		},
		{
			name:    "exclude[0] reversed",
			text:    with(func(t *SpecText) { t.Exclude = []string{"10.20.0.59-10.20.0.50"} }),
			want:    `ipam: spec exclude[0] "10.20.0.59-10.20.0.50": from 10.20.0.59 is after to 10.20.0.50: invalid address: invalid spec`,
			addrErr: true,
		},
		{
			name:    "exclude[1] empty",
			text:    with(func(t *SpecText) { t.Exclude = []string{"10.20.0.7", ""} }),
			want:    `ipam: spec exclude[1] "": unable to parse IP: invalid address: invalid spec`,
			addrErr: true,
		},
		{
			name:    "reserved[0] not an address",
			text:    with(func(t *SpecText) { t.Reserved = []string{"router"} }),
			want:    `ipam: spec reserved[0] "router": unable to parse IP: invalid address: invalid spec`,
			addrErr: true,
		},
		{
			name:    "reserved[1] IPv4-mapped",
			text:    with(func(t *SpecText) { t.Reserved = []string{"10.20.0.1", "::ffff:10.20.0.2"} }),
			want:    `ipam: spec reserved[1] "::ffff:10.20.0.2": IPv4-mapped IPv6 address: write 10.20.0.2: invalid address: invalid spec`,
			addrErr: true,
		},
		{
			name: "strategy in the wrong case",
			text: with(func(t *SpecText) { t.Strategy = "sequential" }),
			want: `ipam: spec strategy "sequential": want "Lowest" or "Sequential": invalid spec`,
		},
		{
			name: "owners in the wrong case",
			text: with(func(t *SpecText) { t.Owners = "mac" }),
			want: `ipam: spec owners "mac": want "Any" or "MAC": invalid spec`,
		},
		{
			name: "several bad fields, one line each in field order",
			text: SpecText{
				CIDR: "10.20.0.5/24", Start: "x", End: "10.20.0.200",
				Exclude:  []string{"10.20.0.7", "10.20.0.9-10.20.0.8"},
				Reserved: []string{"fe80::1%eth0"},
				Strategy: "Random", Owners: "UUID",
			},
			want: strings.Join([]string{
				`ipam: spec cidr "10.20.0.5/24": prefix has host bits set (want 10.20.0.0/24): invalid address: invalid spec`,
				`ipam: spec start "x": unable to parse IP: invalid address: invalid spec`,
				`ipam: spec exclude[1] "10.20.0.9-10.20.0.8": from 10.20.0.9 is after to 10.20.0.8: invalid address: invalid spec`,
				`ipam: spec reserved[0] "fe80::1%eth0": has a zone: invalid address: invalid spec`,
				`ipam: spec strategy "Random": want "Lowest" or "Sequential": invalid spec`,
				`ipam: spec owners "UUID": want "Any" or "MAC": invalid spec`,
			}, "\n"),
			addrErr: true,
		},

		// Every field parses; the Spec does not validate.
		{
			name: "start after end",
			text: with(func(t *SpecText) { t.Start, t.End = "10.20.0.200", "10.20.0.10" }),
			want: `ipam: spec start "10.20.0.200": after end "10.20.0.10": invalid spec`,
		},
		{
			name: "start is the network address",
			text: with(func(t *SpecText) { t.Start = "10.20.0.0" }),
			want: `ipam: spec start "10.20.0.0": not a usable address of prefix 10.20.0.0/24: invalid spec`,
		},
		{
			name: "end outside the CIDR",
			text: with(func(t *SpecText) { t.End = "10.20.1.1" }),
			want: `ipam: spec end "10.20.1.1": outside prefix 10.20.0.0/24: invalid spec`,
		},
		{
			name: "exclude outside the CIDR",
			text: with(func(t *SpecText) { t.Exclude = []string{"10.21.0.0/24"} }),
			want: `ipam: spec exclude[0] "10.21.0.0/24": from 10.21.0.0: outside prefix 10.20.0.0/24: invalid spec`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.text.Parse()
			if err == nil {
				t.Fatalf("Parse() = %+v, want an error", got)
			}
			if diff := cmp.Diff(Spec{}, got, cmpSpecs); diff != "" {
				t.Errorf("Parse() returned a Spec with its error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("Parse() error (-want +got):\n%s", diff)
			}
			if !errors.Is(err, ErrInvalidSpec) {
				t.Errorf("Parse() error does not wrap ErrInvalidSpec")
			}
			if got := errors.Is(err, ErrInvalidAddr); got != tt.addrErr {
				t.Errorf("errors.Is(Parse() error, ErrInvalidAddr) = %t, want %t", got, tt.addrErr)
			}
		})
	}
}

func TestSpecText(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want SpecText
	}{
		{
			name: "zero Strategy and Owners are not written",
			spec: Spec{Prefix: mpp("10.0.0.0/29")},
			want: SpecText{CIDR: "10.0.0.0/29"},
		},
		{
			name: "every field",
			spec: Spec{
				Prefix: mpp("10.20.0.0/24"), Start: mpa("10.20.0.10"), End: mpa("10.20.0.200"),
				Exclude:  []netipx.IPRange{rng("10.20.0.50", "10.20.0.59"), rng("10.20.0.77", "10.20.0.77"), rng("10.20.0.128", "10.20.0.143")},
				Reserved: []netip.Addr{mpa("10.20.0.2"), mpa("10.20.0.1")},
				Strategy: Sequential, Owners: MACOwners,
			},
			want: SpecText{
				CIDR: "10.20.0.0/24", Start: "10.20.0.10", End: "10.20.0.200",
				Exclude:  []string{"10.20.0.50-10.20.0.59", "10.20.0.77", "10.20.0.128/28"},
				Reserved: []string{"10.20.0.2", "10.20.0.1"},
				Strategy: "Sequential", Owners: "MAC",
			},
		},
		{
			name: "IPv6",
			spec: Spec{Prefix: mpp("fd00:1::/64"), Exclude: []netipx.IPRange{rng("fd00:1::", "fd00:1::ffff")}, Reserved: []netip.Addr{mpa("fd00:1::1")}},
			want: SpecText{CIDR: "fd00:1::/64", Exclude: []string{"fd00:1::/112"}, Reserved: []string{"fd00:1::1"}},
		},
		// An invalid Spec is written as well as it can be.
		{name: "zero Spec", spec: Spec{}, want: SpecText{}},
		{
			name: "non-canonical prefix and unknown strategy",
			spec: Spec{Prefix: mpp("10.0.0.1/24"), Strategy: 7, Owners: 9},
			want: SpecText{CIDR: "10.0.0.1/24", Strategy: "Strategy(7)", Owners: "OwnerKind(9)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.spec.Text()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Text() (-want +got):\n%s", diff)
			}
			back, err := got.Parse()
			if validErr := tt.spec.Validate(); validErr != nil {
				if !errors.Is(err, ErrInvalidSpec) {
					t.Errorf("Parse(Text()) of an invalid Spec (%v) = %v, want an error wrapping ErrInvalidSpec", validErr, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(Text()) error: %v", err)
			}
			if diff := cmp.Diff(tt.spec, back, cmpSpecs); diff != "" {
				t.Errorf("Parse(Text()) (-want +got):\n%s", diff)
			}
		})
	}
}

// specTextRoundTrips are valid Specs at the corners of the text form.
var specTextRoundTrips = []struct {
	name string
	spec Spec
}{
	{"small", smallSpec()},
	{"IPv4 /31", Spec{Prefix: mpp("10.0.0.4/31")}},
	{"IPv4 /32", Spec{Prefix: mpp("10.0.0.9/32"), Reserved: []netip.Addr{mpa("10.0.0.9")}}},
	{"IPv6 /127", Spec{Prefix: mpp("2001:db8::4/127"), Start: mpa("2001:db8::5")}},
	{"IPv6 /128", Spec{Prefix: mpp("2001:db8::5/128")}},
	{"IPv4 /0 sequential", Spec{Prefix: mpp("0.0.0.0/0"), Exclude: []netipx.IPRange{rng("0.0.0.0", "9.255.255.255")}, Strategy: Sequential}},
	{"IPv6 /0 across the mapped block", Spec{Prefix: mpp("::/0"), Exclude: []netipx.IPRange{rng("::1", "::1:0:0:0")}, Owners: MACOwners}},
	{"IPv4 subnet ends", Spec{Prefix: mpp("10.0.0.0/24"), Start: mpa("10.0.0.0"), End: mpa("10.0.0.255"), AllocateSubnetEnds: true}},
	{"IPv6 subnet ends", Spec{Prefix: mpp("2001:db8::/64"), Start: mpa("2001:db8::"), AllocateSubnetEnds: true}},
	{"duplicate reservations, overlapping exclusions", Spec{
		Prefix:   mpp("10.0.0.0/24"),
		Exclude:  []netipx.IPRange{rng("10.0.0.10", "10.0.0.20"), rng("10.0.0.15", "10.0.0.30"), rng("10.0.0.15", "10.0.0.30")},
		Reserved: []netip.Addr{mpa("10.0.0.1"), mpa("10.0.0.1"), mpa("10.0.0.15")},
	}},
}

// TestSpecTextRoundTrip: Parse(Text(s)) is s for a valid Spec.
func TestSpecTextRoundTrip(t *testing.T) {
	for _, tt := range specTextRoundTrips {
		t.Run(tt.name, func(t *testing.T) {
			checkSpecTextRoundTrip(t, tt.spec)
		})
	}
}

// TestSpecTextRoundTripRapid: Parse(Text(s)) is s for the Specs the
// property tests draw.
func TestSpecTextRoundTripRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		checkSpecTextRoundTrip(t, genSpec(t))
	})
}

func checkSpecTextRoundTrip(t interface {
	Helper()
	Fatalf(string, ...any)
}, spec Spec) {
	t.Helper()
	if err := spec.Validate(); err != nil {
		t.Fatalf("test Spec is invalid: %v", err)
	}
	text := spec.Text()
	got, err := text.Parse()
	if err != nil {
		t.Fatalf("Parse(%+v) error: %v", text, err)
	}
	if diff := cmp.Diff(spec, got, cmpSpecs); diff != "" {
		t.Fatalf("Parse(Text()) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(text, got.Text()); diff != "" {
		t.Fatalf("Text() is not a fixed point (-first +second):\n%s", diff)
	}
}

// Each bad field is a *FieldError an adapter can rename; FieldErrors lists
// them in field order.
func TestSpecTextFieldErrors(t *testing.T) {
	_, err := SpecText{CIDR: "10.20.0.0/24", Exclude: []string{"10.20.0.5", "10.20.0.77/24"}, Reserved: []string{"::ffff:10.20.0.2"}}.Parse()
	var got []string
	for _, fe := range FieldErrors(err) {
		got = append(got, fe.Field+"="+fe.Value)
		if !errors.Is(fe, ErrInvalidSpec) || !errors.Is(fe, ErrInvalidAddr) {
			t.Errorf("%v does not wrap ErrInvalidSpec and ErrInvalidAddr", fe)
		}
	}
	want := []string{"exclude[1]=10.20.0.77/24", "reserved[0]=::ffff:10.20.0.2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FieldErrors (-want +got):\n%s", diff)
	}
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "exclude[1]" {
		t.Errorf("errors.As = %v, want the exclude[1] FieldError", fe)
	}
	_, err = SpecText{CIDR: "10.20.0.0/24", Start: "10.20.0.9", End: "10.20.0.8"}.Parse()
	if fes := FieldErrors(err); len(fes) != 1 || fes[0].Field != "start" || fes[0].Value != "10.20.0.9" {
		t.Errorf("a Validate-level error %v: want the FieldError of start", err)
	}
}
