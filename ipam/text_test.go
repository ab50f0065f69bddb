package ipam

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go4.org/netipx"
)

// parseRangeTests are the inputs of ParseRange, every form in both families
// and every way to get one wrong. An error case lists the texts its message
// must hold besides the quoted input.
var parseRangeTests = []struct {
	name string
	in   string
	want netipx.IPRange // zero for an error
	msg  []string
}{
	// One address.
	{name: "IPv4 address", in: "10.0.0.7", want: rng("10.0.0.7", "10.0.0.7")},
	{name: "IPv6 address", in: "2001:db8::7", want: rng("2001:db8::7", "2001:db8::7")},
	{name: "IPv6 address in upper case", in: "2001:DB8::A", want: rng("2001:db8::a", "2001:db8::a")},
	{name: "IPv4 unspecified", in: "0.0.0.0", want: rng("0.0.0.0", "0.0.0.0")},
	{name: "IPv6 unspecified", in: "::", want: rng("::", "::")},
	{name: "IPv4-compatible IPv6 address is not mapped", in: "::10.0.0.1", want: rng("::a00:1", "::a00:1")},

	// From-to.
	{name: "IPv4 range", in: "10.0.0.10-10.0.0.19", want: rng("10.0.0.10", "10.0.0.19")},
	{name: "IPv6 range", in: "2001:db8::10-2001:db8::1f", want: rng("2001:db8::10", "2001:db8::1f")},
	{name: "IPv4 range of one address", in: "10.0.0.5-10.0.0.5", want: rng("10.0.0.5", "10.0.0.5")},
	{name: "IPv6 range of one address", in: "2001:db8::5-2001:db8::5", want: rng("2001:db8::5", "2001:db8::5")},
	{name: "IPv4 whole family", in: "0.0.0.0-255.255.255.255", want: rng("0.0.0.0", "255.255.255.255")},
	{name: "IPv6 whole family", in: "::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", want: rng("::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")},
	{name: "IPv6 range across the mapped block", in: "::1-::1:0:0:0", want: rng("::1", "::1:0:0:0")},

	// Prefixes.
	{name: "IPv4 /28", in: "10.0.0.64/28", want: rng("10.0.0.64", "10.0.0.79")},
	{name: "IPv6 /64", in: "2001:db8::/64", want: rng("2001:db8::", "2001:db8::ffff:ffff:ffff:ffff")},
	{name: "IPv4 /0", in: "0.0.0.0/0", want: rng("0.0.0.0", "255.255.255.255")},
	{name: "IPv6 /0", in: "::/0", want: rng("::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")},
	{name: "IPv4 /31", in: "10.0.0.4/31", want: rng("10.0.0.4", "10.0.0.5")},
	{name: "IPv4 /32", in: "10.0.0.9/32", want: rng("10.0.0.9", "10.0.0.9")},
	{name: "IPv6 /127", in: "2001:db8::4/127", want: rng("2001:db8::4", "2001:db8::5")},
	{name: "IPv6 /128", in: "2001:db8::5/128", want: rng("2001:db8::5", "2001:db8::5")},

	// Host bits set: the error names the canonical prefix.
	{name: "IPv4 /24 with host bits set", in: "10.0.0.77/24", msg: []string{"host bits set", "want 10.0.0.0/24"}},
	{name: "IPv6 /64 with host bits set", in: "2001:db8::1/64", msg: []string{"host bits set", "want 2001:db8::/64"}},
	{name: "IPv4 /0 with host bits set", in: "10.0.0.0/0", msg: []string{"host bits set", "want 0.0.0.0/0"}},
	{name: "IPv6 /0 with host bits set", in: "2001:db8::/0", msg: []string{"host bits set", "want ::/0"}},
	{name: "IPv4 /31 with host bits set", in: "10.0.0.5/31", msg: []string{"host bits set", "want 10.0.0.4/31"}},
	{name: "IPv6 /127 with host bits set", in: "2001:db8::5/127", msg: []string{"host bits set", "want 2001:db8::4/127"}},

	// IPv4-mapped IPv6: the error says what to write.
	{name: "mapped address", in: "::ffff:10.0.0.1", msg: []string{"IPv4-mapped", "write 10.0.0.1"}},
	{name: "mapped address in hex", in: "::ffff:a00:1", msg: []string{"IPv4-mapped", "write 10.0.0.1"}},
	{name: "mapped prefix", in: "::ffff:10.0.0.0/104", msg: []string{"IPv4-mapped", "write 10.0.0.0/8"}},
	{name: "mapped /128", in: "::ffff:10.0.0.1/128", msg: []string{"IPv4-mapped", "write 10.0.0.1/32"}},
	{name: "mapped /96", in: "::ffff:0:0/96", msg: []string{"IPv4-mapped", "write 0.0.0.0/0"}},
	{name: "mapped from", in: "::ffff:10.0.0.1-::ffff:10.0.0.9", msg: []string{`from "::ffff:10.0.0.1"`, "write 10.0.0.1"}},
	{name: "mapped to", in: "10.0.0.1-::ffff:10.0.0.9", msg: []string{`to "::ffff:10.0.0.9"`, "write 10.0.0.9"}},

	// Zones.
	{name: "zone", in: "fe80::1%eth0", msg: []string{"zone"}},
	{name: "zone on from", in: "fe80::1%eth0-fe80::9", msg: []string{`from "fe80::1%eth0"`, "zone"}},
	{name: "zone on to", in: "fe80::1-fe80::9%eth0", msg: []string{`to "fe80::9%eth0"`, "zone"}},
	{name: "zone in prefix", in: "fe80::%eth0/64", msg: []string{"zone"}},

	// Order and families.
	{name: "IPv4 range reversed", in: "10.0.0.9-10.0.0.1", msg: []string{"from 10.0.0.9 is after to 10.0.0.1"}},
	{name: "IPv6 range reversed", in: "2001:db8::9-2001:db8::1", msg: []string{"from 2001:db8::9 is after to 2001:db8::1"}},
	{name: "IPv4 to IPv6", in: "10.0.0.1-2001:db8::1", msg: []string{"different families"}},
	{name: "IPv6 to IPv4", in: "2001:db8::1-10.0.0.1", msg: []string{"different families"}},

	// Not text of an address.
	{name: "empty string", in: ""},
	{name: "space", in: " "},
	{name: "leading space", in: " 10.0.0.1"},
	{name: "trailing space", in: "10.0.0.1 "},
	{name: "spaces around the hyphen", in: "10.0.0.1 - 10.0.0.9"},
	{name: "space in a prefix", in: "10.0.0.0/ 24"},
	{name: "empty from", in: "-10.0.0.9", msg: []string{`from ""`}},
	{name: "empty to", in: "10.0.0.1-", msg: []string{`to ""`}},
	{name: "hyphen alone", in: "-"},
	{name: "three addresses", in: "10.0.0.1-10.0.0.2-10.0.0.3", msg: []string{`to "10.0.0.2-10.0.0.3"`}},
	{name: "prefix length too long", in: "10.0.0.0/33"},
	{name: "IPv6 prefix length too long", in: "2001:db8::/129"},
	{name: "prefix without length", in: "10.0.0.0/"},
	{name: "prefix length with leading zero", in: "10.0.0.0/024"},
	{name: "prefix then range", in: "10.0.0.0/24-10.0.1.0"},
	{name: "octet with leading zero", in: "010.0.0.1", msg: []string{"leading zero"}},
	{name: "octet too large", in: "10.0.0.256"},
	{name: "hostname", in: "router.example"},
}

func TestParseRange(t *testing.T) {
	for _, tt := range parseRangeTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRange(tt.in)
			if diff := cmp.Diff(tt.want, got, cmpAddrs); diff != "" {
				t.Errorf("ParseRange(%q) (-want +got):\n%s", tt.in, diff)
			}
			if !tt.want.IsValid() {
				checkTextError(t, "ParseRange", tt.in, err, tt.msg)
				return
			}
			if err != nil {
				t.Fatalf("ParseRange(%q) error: %v", tt.in, err)
			}
		})
	}
}

// checkTextError checks err, the error of fn(in): it wraps ErrInvalidAddr,
// starts with the function and the quoted input, and holds each of msg.
func checkTextError(t *testing.T, fn, in string, err error, msg []string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s(%q) succeeded, want an error", fn, in)
	}
	if !errors.Is(err, ErrInvalidAddr) {
		t.Errorf("%s(%q) error %q does not wrap ErrInvalidAddr", fn, in, err)
	}
	if prefix := "ipam: " + fn + "(" + strconv.Quote(in) + "): "; !strings.HasPrefix(err.Error(), prefix) {
		t.Errorf("%s(%q) error %q does not start with %q", fn, in, err, prefix)
	}
	for _, m := range msg {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("%s(%q) error %q does not say %q", fn, in, err, m)
		}
	}
}

func TestParseRangeErrorText(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"host bits set", "10.0.0.77/24", `ipam: ParseRange("10.0.0.77/24"): prefix has host bits set (want 10.0.0.0/24): invalid address`},
		{"mapped prefix", "::ffff:10.0.0.0/120", `ipam: ParseRange("::ffff:10.0.0.0/120"): IPv4-mapped IPv6 prefix: write 10.0.0.0/24: invalid address`},
		{"mapped address", "::ffff:10.0.0.1", `ipam: ParseRange("::ffff:10.0.0.1"): IPv4-mapped IPv6 address: write 10.0.0.1: invalid address`},
		{"reversed", "10.0.0.9-10.0.0.1", `ipam: ParseRange("10.0.0.9-10.0.0.1"): from 10.0.0.9 is after to 10.0.0.1: invalid address`},
		{"mixed families", "10.0.0.1-::1", `ipam: ParseRange("10.0.0.1-::1"): from and to of different families: invalid address`},
		{"zone", "fe80::1%eth0", `ipam: ParseRange("fe80::1%eth0"): has a zone: invalid address`},
		{"netip's reason without its prefix", "10.0.0.256", `ipam: ParseRange("10.0.0.256"): IPv4 field has value >255: invalid address`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRange(tt.in)
			if err == nil {
				t.Fatalf("ParseRange(%q) succeeded", tt.in)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("ParseRange(%q) error (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestParseRangeMappedPrefixShorterThan96: a prefix that starts with an
// IPv4-mapped address but is shorter than /96 has host bits set and names
// no IPv4 prefix at all; the error must name its canonical prefix, not
// advise an IPv4 prefix (0.0.0.0/0 would exclude every IPv4 address).
func TestParseRangeMappedPrefixShorterThan96(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"/90", "::ffff:0:0/90", "want ::ffc0:0:0/90"},
		{"/80", "::ffff:10.0.0.0/80", "want ::/80"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRange(tt.in)
			checkTextError(t, "ParseRange", tt.in, err, []string{"host bits set", tt.want})
			if err != nil && strings.Contains(err.Error(), "write 0.0.0.0/0") {
				t.Errorf("ParseRange(%q) error %q advises an IPv4 prefix for an IPv6 one", tt.in, err)
			}
		})
	}
}

func TestParseAddr(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want netip.Addr // zero for an error
		msg  []string
	}{
		{name: "IPv4", in: "10.0.0.1", want: mpa("10.0.0.1")},
		{name: "IPv6", in: "2001:db8::1", want: mpa("2001:db8::1")},
		{name: "IPv6 upper case", in: "2001:DB8::A", want: mpa("2001:db8::a")},
		{name: "IPv4 unspecified", in: "0.0.0.0", want: mpa("0.0.0.0")},
		{name: "IPv6 unspecified", in: "::", want: mpa("::")},
		{name: "IPv4 broadcast", in: "255.255.255.255", want: mpa("255.255.255.255")},
		{name: "IPv6 last address", in: "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", want: mpa("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")},
		{name: "IPv4-compatible IPv6 is not mapped", in: "::10.0.0.1", want: mpa("::a00:1")},
		{name: "mapped", in: "::ffff:10.0.0.1", msg: []string{"IPv4-mapped", "write 10.0.0.1"}},
		{name: "mapped in hex", in: "::ffff:a00:1", msg: []string{"IPv4-mapped", "write 10.0.0.1"}},
		{name: "mapped zero", in: "::ffff:0.0.0.0", msg: []string{"write 0.0.0.0"}},
		{name: "zone", in: "fe80::1%eth0", msg: []string{"has a zone"}},
		{name: "mapped with zone", in: "::ffff:10.0.0.1%eth0", msg: []string{"has a zone"}},
		{name: "IPv4 with zone", in: "10.0.0.1%eth0"},
		{name: "empty string", in: ""},
		{name: "leading space", in: " 10.0.0.1"},
		{name: "trailing space", in: "10.0.0.1 "},
		{name: "prefix", in: "10.0.0.0/24"},
		{name: "range", in: "10.0.0.1-10.0.0.2"},
		{name: "octet with leading zero", in: "010.0.0.1", msg: []string{"leading zero"}},
		{name: "too many octets", in: "1.2.3.4.5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAddr(tt.in)
			if got != tt.want {
				t.Errorf("ParseAddr(%q) = %v, want %v", tt.in, got, tt.want)
			}
			if !tt.want.IsValid() {
				checkTextError(t, "ParseAddr", tt.in, err, tt.msg)
				return
			}
			if err != nil {
				t.Fatalf("ParseAddr(%q) error: %v", tt.in, err)
			}
		})
	}
}

func TestFormatRange(t *testing.T) {
	tests := []struct {
		name string
		in   netipx.IPRange
		want string
	}{
		{"zero range", netipx.IPRange{}, ""},
		{"IPv4 one address", rng("10.0.0.7", "10.0.0.7"), "10.0.0.7"},
		{"IPv6 one address", rng("2001:db8::7", "2001:db8::7"), "2001:db8::7"},
		{"IPv4 prefix", rng("10.0.0.64", "10.0.0.79"), "10.0.0.64/28"},
		{"IPv6 prefix", rng("2001:db8::", "2001:db8::ffff:ffff:ffff:ffff"), "2001:db8::/64"},
		{"IPv4 /31", rng("10.0.0.4", "10.0.0.5"), "10.0.0.4/31"},
		{"IPv6 /127", rng("2001:db8::4", "2001:db8::5"), "2001:db8::4/127"},
		{"IPv4 whole family", rng("0.0.0.0", "255.255.255.255"), "0.0.0.0/0"},
		{"IPv6 whole family", rng("::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"), "::/0"},
		{"IPv4 unaligned", rng("10.0.0.10", "10.0.0.19"), "10.0.0.10-10.0.0.19"},
		{"IPv4 two addresses not a prefix", rng("10.0.0.5", "10.0.0.6"), "10.0.0.5-10.0.0.6"},
		{"IPv6 unaligned", rng("2001:db8::10", "2001:db8::20"), "2001:db8::10-2001:db8::20"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FormatRange(tt.in)
			if got != tt.want {
				t.Errorf("FormatRange(%v) = %q, want %q", tt.in, got, tt.want)
			}
			if !tt.in.IsValid() {
				return
			}
			back, err := ParseRange(got)
			if err != nil {
				t.Fatalf("ParseRange(FormatRange(%v)) error: %v", tt.in, err)
			}
			if back != tt.in {
				t.Errorf("ParseRange(FormatRange(%v)) = %v", tt.in, back)
			}
		})
	}
}

// TestFormatRangeRoundTrip: every range ParseRange accepts formats to text
// that parses back to it, and that text is a fixed point.
func TestFormatRangeRoundTrip(t *testing.T) {
	for _, tt := range parseRangeTests {
		if !tt.want.IsValid() {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			text := FormatRange(tt.want)
			got, err := ParseRange(text)
			if err != nil {
				t.Fatalf("ParseRange(FormatRange(%v) = %q) error: %v", tt.want, text, err)
			}
			if got != tt.want {
				t.Errorf("ParseRange(FormatRange(%v) = %q) = %v", tt.want, text, got)
			}
			if again := FormatRange(got); again != text {
				t.Errorf("FormatRange is not a fixed point: %q then %q", text, again)
			}
		})
	}
}
