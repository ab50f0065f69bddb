package readiness

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestParseReported(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // "" for an error
	}{
		{"IPv4", "10.0.0.5", "10.0.0.5"},
		{"IPv4 with prefix length", "10.0.0.5/24", "10.0.0.5"},
		{"IPv4 /32", "240.255.0.1/32", "240.255.0.1"},
		{"IPv4 /0", "10.0.0.5/0", "10.0.0.5"},
		{"IPv6", "2001:db8::5", "2001:db8::5"},
		{"IPv6 with prefix length", "2001:db8::5/64", "2001:db8::5"},
		{"IPv6 upper case", "2001:DB8::5/128", "2001:db8::5"},
		{"link-local with zone", "fe80::1%eth0", "fe80::1%eth0"},
		{"link-local with zone and prefix length", "fe80::1%eth0/64", "fe80::1%eth0"},
		{"a space before the prefix length, not kept in the zone", "fe80::1%eth0 /64", "fe80::1%eth0"},
		{"IPv4-mapped kept", "::ffff:10.0.0.5", "::ffff:10.0.0.5"},
		{"spaces around", " 10.0.0.5/24\n", "10.0.0.5"},
		{"unusable returned as is", "169.254.1.1", "169.254.1.1"},
		{"empty", "", ""},
		{"a name", "node-1", ""},
		{"IPv4 prefix too long", "10.0.0.5/33", ""},
		{"IPv6 prefix too long", "2001:db8::5/129", ""},
		{"negative prefix length", "10.0.0.5/-1", ""},
		{"prefix length with a sign", "10.0.0.5/+8", ""},
		{"prefix length with a leading zero", "10.0.0.5/08", ""},
		{"empty prefix length", "10.0.0.5/", ""},
		{"two slashes", "10.0.0.5/24/24", ""},
		{"zone on IPv4", "10.0.0.5%eth0", ""},
		{"brackets", "[2001:db8::5]", ""},
		{"with a port", "10.0.0.5:80", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseReported(tt.in)
			if tt.want == "" {
				if err == nil || !errors.Is(err, ErrInvalidReported) || got.IsValid() {
					t.Fatalf("ParseReported(%q) = %v, %v; want the zero Addr and ErrInvalidReported", tt.in, got, err)
				}
				return
			}
			if err != nil || got != netip.MustParseAddr(tt.want) {
				t.Fatalf("ParseReported(%q) = %v, %v; want %s", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestParseReportedErrorIsBounded protects callers that log the error of a
// guest agent's report: its size does not follow the input's.
func TestParseReportedErrorIsBounded(t *testing.T) {
	_, err := ParseReported(strings.Repeat("\x00", 1<<20))
	if err == nil || len(err.Error()) > 512 {
		t.Fatalf("error of a 1 MiB report is %d bytes", len(err.Error()))
	}
}

func FuzzParseReported(f *testing.F) {
	for _, s := range []string{"10.0.0.5", "10.0.0.5/24", "fe80::1%eth0", "fe80::1%eth0/64", "::ffff:1.2.3.4/120",
		"", "/", "1.2.3.4/", "10.0.0.5/08", " 2001:db8::1 ", "1.2.3.4%x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseReported(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidReported) || a.IsValid() || len(err.Error()) > 512 {
				t.Fatalf("ParseReported(%q) = %v, %v", s, a, err)
			}
			return
		}
		// What it returns reads back as itself.
		if b, err := ParseReported(a.String()); err != nil || b != a {
			t.Fatalf("ParseReported(%q) = %v, but ParseReported(%q) = %v, %v", s, a, a.String(), b, err)
		}
	})
}

// TestParseErrorsAreBounded protects callers that log a spec's errors: the
// error of a device spec of any size stays within a few KB.
func TestParseErrorsAreBounded(t *testing.T) {
	huge := strings.Repeat("\x00", 1<<20)
	for name, err := range map[string]error{
		"type":          errOf(ParseDevice(huge, "", nil)),
		"MAC":           errOf(ParseDevice(TypeIPv4DHCP, huge, nil)),
		"static":        errOf(ParseDevice(TypeIPv4, "", []string{huge})),
		"static prefix": errOf(ParseStaticAddr(huge + "/24")),
		"validate MAC":  errorsOf(Evaluate(Input{Devices: []Device{{MAC: huge, DHCP4: true}}}, Strict).Problems),
	} {
		if err == nil || len(err.Error()) > 2048 {
			t.Errorf("%s: error of a 1 MiB value is %d bytes", name, len(err.Error()))
		}
	}
}

func errOf[T any](_ T, err error) error { return err }

func errorsOf(ps []Problem) error {
	if len(ps) == 0 {
		return nil
	}
	return ps[0]
}
