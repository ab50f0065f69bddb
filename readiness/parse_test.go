package readiness

import (
	"errors"
	"fmt"
	"testing"
)

func TestParseDevice(t *testing.T) {
	tests := []struct {
		typ, mac string
		static   []string
		want     string // the Device as %+v, or the error
		is       error
	}{
		{typ: "NONE", want: "{MAC: DHCP4:false DHCP6:false Static:[]}"},
		{typ: "IPV4_DHCP", mac: "52-54-00-12-34-56", want: "{MAC:52:54:00:12:34:56 DHCP4:true DHCP6:false Static:[]}"},
		{typ: "IPV6_DHCP", mac: "5254.0012.3456", want: "{MAC:52:54:00:12:34:56 DHCP4:false DHCP6:true Static:[]}"},
		{typ: "IPV4V6_DHCP", want: "{MAC: DHCP4:true DHCP6:true Static:[]}"},
		{typ: "IPV4", static: []string{"192.0.2.10/32", "10.1.1.1"}, want: "{MAC: DHCP4:false DHCP6:false Static:[192.0.2.10 10.1.1.1]}"},
		{typ: "IPV6", static: []string{"2001:db8::10/64"}, want: "{MAC: DHCP4:false DHCP6:false Static:[2001:db8::10]}"},
		{typ: "IPV4V6", static: []string{"2001:db8::10", "10.1.1.1/24"}, want: "{MAC: DHCP4:false DHCP6:false Static:[2001:db8::10 10.1.1.1]}"},
		{typ: "IPV4_DHCP", static: []string{"2001:db8::10"}, want: "{MAC: DHCP4:true DHCP6:false Static:[2001:db8::10]}"},
		{typ: "IPV6_DHCP", static: []string{"10.1.1.1"}, want: "{MAC: DHCP4:false DHCP6:true Static:[10.1.1.1]}"},

		{typ: "ipv4_dhcp", is: ErrUnknownType, want: `readiness: parse device type "ipv4_dhcp": unknown device type (want one of NONE, IPV4, IPV6, IPV4V6, IPV4_DHCP, IPV6_DHCP, IPV4V6_DHCP)`},
		{typ: "", is: ErrUnknownType, want: `readiness: parse device type "": unknown device type (want one of NONE, IPV4, IPV6, IPV4V6, IPV4_DHCP, IPV6_DHCP, IPV4V6_DHCP)`},
		{typ: "DHCP", is: ErrUnknownType, want: `readiness: parse device type "DHCP": unknown device type (want one of NONE, IPV4, IPV6, IPV4V6, IPV4_DHCP, IPV6_DHCP, IPV4V6_DHCP)`},
		{typ: "IPV4 ", is: ErrUnknownType, want: `readiness: parse device type "IPV4 ": unknown device type (want one of NONE, IPV4, IPV6, IPV4V6, IPV4_DHCP, IPV6_DHCP, IPV4V6_DHCP)`},
		{typ: "IPV4_DHCP", mac: "52:54:00:12:34", is: ErrInvalidMAC, want: `readiness: parse device MAC "52:54:00:12:34": invalid MAC address`},
		{typ: "IPV4", is: ErrMissingStatic, want: `readiness: parse device IPV4: static address missing: no IPv4 address`},
		{typ: "IPV4V6", static: []string{"10.1.1.1"}, is: ErrMissingStatic, want: `readiness: parse device IPV4V6: static address missing: no IPv6 address`},
		{typ: "IPV4", static: []string{"2001:db8::1"}, is: ErrStaticNotAllowed, want: `readiness: parse device IPV4 static address "2001:db8::1": static address not allowed by the device type`},
		{typ: "NONE", static: []string{"10.1.1.1"}, is: ErrStaticNotAllowed, want: `readiness: parse device NONE static address "10.1.1.1": static address not allowed by the device type`},
		{typ: "IPV4_DHCP", static: []string{"10.1.1.1"}, is: ErrStaticWithDHCP, want: `readiness: parse device IPV4_DHCP static address "10.1.1.1": static address of a family the device asks DHCP for`},
		{typ: "IPV4V6_DHCP", static: []string{"2001:db8::1"}, is: ErrStaticWithDHCP, want: `readiness: parse device IPV4V6_DHCP static address "2001:db8::1": static address of a family the device asks DHCP for`},
		{typ: "IPV4", static: []string{"10.1.1.1/24", "10.1.1.1"}, is: ErrDuplicateStatic, want: `readiness: parse device IPV4 static address "10.1.1.1": duplicate static address`},
		{typ: "IPV4", static: []string{"10.1.1.256"}, is: ErrInvalidStatic, want: `readiness: parse static address "10.1.1.256": invalid static address: ParseAddr("10.1.1.256"): IPv4 field has value >255`},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/%v", tt.typ, tt.mac, tt.static), func(t *testing.T) {
			d, err := ParseDevice(tt.typ, tt.mac, tt.static)
			got := fmt.Sprintf("%+v", d)
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("ParseDevice(%q, %q, %q) = %s\nwant %s", tt.typ, tt.mac, tt.static, got, tt.want)
			}
			if (err != nil) != (tt.is != nil) || tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v, want errors.Is %v", err, tt.is)
			}
		})
	}
}

func TestParseStaticAddr(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"10.1.1.1", "10.1.1.1"},
		{"10.1.1.1/24", "10.1.1.1"},
		{"10.1.1.1/32", "10.1.1.1"},
		{"10.1.1.0/24", "10.1.1.0"},
		{"2001:db8::7", "2001:db8::7"},
		{"2001:db8::7/64", "2001:db8::7"},
		{"2001:DB8::7/128", "2001:db8::7"},
		{"", `readiness: parse static address "": invalid static address: ParseAddr(""): unable to parse IP`},
		{"10.1.1.1/33", `readiness: parse static address "10.1.1.1/33": invalid static address: netip.ParsePrefix("10.1.1.1/33"): prefix length out of range`},
		{"10.1.1.1/", `readiness: parse static address "10.1.1.1/": invalid static address: netip.ParsePrefix("10.1.1.1/"): bad bits after slash: ""`},
		{" 10.1.1.1", `readiness: parse static address " 10.1.1.1": invalid static address: ParseAddr(" 10.1.1.1"): unexpected character (at " 10.1.1.1")`},
		{"fe80::1%eth0", `readiness: parse static address "fe80::1%eth0": invalid static address: zoned`},
		{"::ffff:10.1.1.1", `readiness: parse static address "::ffff:10.1.1.1": invalid static address: IPv4-mapped IPv6`},
		{"169.254.1.1/16", `readiness: parse static address "169.254.1.1/16": invalid static address: link-local`},
		{"127.0.0.1", `readiness: parse static address "127.0.0.1": invalid static address: loopback`},
		{"0.0.0.0/0", `readiness: parse static address "0.0.0.0/0": invalid static address: unspecified`},
		{"ff02::1", `readiness: parse static address "ff02::1": invalid static address: multicast`},
	}
	for _, tt := range tests {
		a, err := ParseStaticAddr(tt.in)
		got := a.String()
		if err != nil {
			got = err.Error()
			if !errors.Is(err, ErrInvalidStatic) {
				t.Errorf("ParseStaticAddr(%q) error %v is not ErrInvalidStatic", tt.in, err)
			}
		}
		if got != tt.want {
			t.Errorf("ParseStaticAddr(%q) = %s\nwant %s", tt.in, got, tt.want)
		}
	}
}
