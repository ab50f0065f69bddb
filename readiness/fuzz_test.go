package readiness

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/hwaddr"
)

func FuzzParseStaticAddr(f *testing.F) {
	for _, s := range []string{"10.1.1.1", "10.1.1.1/24", "10.1.1.1/33", "2001:db8::7/64", "fe80::1%eth0",
		"::ffff:10.1.1.1", "169.254.1.1", "0.0.0.0/0", "", "/", "1.2.3.4/", "2001:db8::/129", "ff02::1",
		"255.255.255.255", "0.1.2.3/8", "240.0.0.1/4", "223.255.255.255"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseStaticAddr(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidStatic) || a.IsValid() {
				t.Fatalf("ParseStaticAddr(%q) = %v, %v; want the zero Addr and ErrInvalidStatic", s, a, err)
			}
			return
		}
		if why := staticDefect(a); why != "" {
			t.Fatalf("ParseStaticAddr(%q) = %v, which is %s", s, a, why)
		}
		if !strings.Contains(s, "/") {
			if want, _ := netip.ParseAddr(s); want != a {
				t.Fatalf("ParseStaticAddr(%q) = %v, netip.ParseAddr says %v", s, a, want)
			}
		}
		again, err := ParseStaticAddr(a.String())
		if err != nil || again != a {
			t.Fatalf("round trip of %q: ParseStaticAddr(%q) = %v, %v", s, a.String(), again, err)
		}
	})
}

func FuzzParseDevice(f *testing.F) {
	f.Add("IPV4_DHCP", "52:54:00:12:34:56", "", "", uint8(0))
	f.Add("IPV4", "AA-BB-CC-DD-EE-FF", "10.1.1.1/24", "", uint8(1))
	f.Add("IPV4V6", "aabb.ccdd.eeff", "10.1.1.1", "2001:db8::1/64", uint8(2))
	f.Add("IPV6_DHCP", "", "10.1.1.1", "10.1.1.1", uint8(2))
	f.Add("ipv4_dhcp", "zz", "x", "", uint8(1))
	f.Add("NONE", "52:54:00:12:34", "", "", uint8(0))
	f.Add("IPV4V6_DHCP", "52:54:00:12:34:56", "2001:db8::1", "", uint8(1))
	sentinels := []error{ErrUnknownType, ErrInvalidMAC, ErrInvalidStatic, ErrDuplicateStatic,
		ErrStaticWithDHCP, ErrStaticNotAllowed, ErrMissingStatic}
	f.Fuzz(func(t *testing.T, typ, mac, s1, s2 string, n uint8) {
		static := []string{s1, s2}[:n%3]
		d, err := ParseDevice(typ, mac, static)
		if err != nil {
			if !slices.ContainsFunc(sentinels, func(s error) bool { return errors.Is(err, s) }) {
				t.Fatalf("ParseDevice(%q, %q, %q) error %v wraps no sentinel", typ, mac, static, err)
			}
			return
		}
		if mac != "" {
			if want, ok := modelMAC(mac); !ok || d.MAC != want {
				t.Fatalf("ParseDevice MAC %q = %q; net.ParseMAC says %q, %t", mac, d.MAC, want, ok)
			}
		}
		strs := make([]string, len(d.Static))
		for i, a := range d.Static {
			strs[i] = a.String()
		}
		again, err := ParseDevice(typ, d.MAC, strs)
		if err != nil || again.MAC != d.MAC || again.DHCP4 != d.DHCP4 || again.DHCP6 != d.DHCP6 || !slices.Equal(again.Static, d.Static) {
			t.Fatalf("round trip: %+v became %+v, %v", d, again, err)
		}
		// A parsed device is a valid spec on its own.
		if v := Evaluate(Input{Devices: []Device{d}}, Strict); v.Reason == ReasonInvalidNetworkSpec {
			t.Fatalf("ParseDevice(%q, %q, %q) = %+v, an invalid spec: %s", typ, mac, static, d, v.Message)
		}
	})
}

// FuzzCanonicalMAC checks the MAC spelling readiness matches NICs by against
// the standard library, which accepts the same forms for 6-byte MACs.
func FuzzCanonicalMAC(f *testing.F) {
	for _, s := range []string{"52:54:00:12:34:56", "52-54-00-AB-CD-EF", "5254.00ab.cdef", "5254.00ab.cdef.0102", "52:54:00:12:34", "", "zz:zz:zz:zz:zz:zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := hwaddr.Canonical(s)
		want, wantOK := modelMAC(s)
		if got != want || ok != wantOK {
			t.Fatalf("hwaddr.Canonical(%q) = %q, %t; net.ParseMAC says %q, %t", s, got, ok, want, wantOK)
		}
	})
}

// fuzzBytes hands out the fuzzer's bytes, then zeros.
type fuzzBytes []byte

func (b *fuzzBytes) next() byte {
	if len(*b) == 0 {
		return 0
	}
	c := (*b)[0]
	*b = (*b)[1:]
	return c
}

func (b *fuzzBytes) addr() netip.Addr {
	switch b.next() % 6 {
	case 0:
		return netip.Addr{}
	case 1: // small space: collisions between NICs, Node and statics
		return netip.AddrFrom4([4]byte{10, 0, b.next() % 3, b.next() % 3})
	case 2:
		return netip.AddrFrom4([4]byte{b.next(), b.next(), b.next(), b.next()})
	case 3:
		var a [16]byte
		for i := range a {
			a[i] = b.next()
		}
		return netip.AddrFrom16(a)
	case 4:
		return usablePool[int(b.next())%len(usablePool)]
	default:
		return unusablePool[int(b.next())%len(unusablePool)]
	}
}

// decodeInput builds an Input, whatever the bytes; mac is a free-form MAC.
func decodeInput(data []byte, mac string) (Input, Policy) {
	b := fuzzBytes(data)
	macs := []string{"", mac0, mac1, "52-54-00-12-34-57", mac, "zz"}
	var in Input
	for range b.next() % 5 {
		flags := b.next()
		d := Device{MAC: macs[int(b.next())%len(macs)], DHCP4: flags&1 != 0, DHCP6: flags&2 != 0}
		for range (flags >> 2) % 3 {
			d.Static = append(d.Static, b.addr())
		}
		in.Devices = append(in.Devices, d)
	}
	for range b.next() % 6 {
		n := NIC{MAC: macs[int(b.next())%len(macs)]}
		for range b.next() % 4 {
			n.Addrs = append(n.Addrs, b.addr())
		}
		in.NICs = append(in.NICs, n)
	}
	for range b.next() % 4 {
		in.NodeAddrs = append(in.NodeAddrs, b.addr())
	}
	for range b.next() % 3 {
		in.Ignore = append(in.Ignore, netip.PrefixFrom(b.addr(), int(b.next()%140)-5))
	}
	return in, Policy(b.next() % 3)
}

// FuzzEvaluate: no input makes Evaluate panic, and every verdict is
// self-consistent and deterministic.
func FuzzEvaluate(f *testing.F) {
	f.Add([]byte{}, "")
	f.Add([]byte{2, 1, 1, 4, 2, 2, 1, 1, 1, 0, 2, 1, 1, 1, 2, 1, 0, 0}, "52:54:00:12:34:56")
	f.Add([]byte{3, 3, 4, 1, 4, 1, 9, 5, 3, 3, 4, 4, 4, 5, 2, 2, 5, 5, 5, 4, 3, 1, 1, 1}, "AA-BB-CC-DD-EE-FF")
	f.Add([]byte{1, 8, 0, 4, 1, 1, 1, 1, 2, 2, 2, 1, 2, 2, 0, 2, 1, 1, 2, 2, 4, 0, 1}, "zz")
	f.Fuzz(func(t *testing.T, data []byte, mac string) {
		in, p := decodeInput(data, mac)
		snapshot := cloneInput(in)
		v := Evaluate(in, p)
		if !slices.Equal(render(v), render(Evaluate(in, p))) {
			t.Fatalf("%s: not deterministic", p)
		}
		if !equalInput(in, snapshot) {
			t.Fatalf("Evaluate modified its input")
		}
		switch {
		case v.Ready != (v.Reason == ""):
			t.Fatalf("Ready %t with Reason %q", v.Ready, v.Reason)
		case v.Ready != (v.Message == ""):
			t.Fatalf("Ready %t with Message %q", v.Ready, v.Message)
		case (v.Reason == ReasonInvalidNetworkSpec) != (len(v.Problems) > 0):
			t.Fatalf("Reason %q with %d problems", v.Reason, len(v.Problems))
		case v.Reason != ReasonInvalidNetworkSpec && len(v.Devices) != len(in.Devices):
			t.Fatalf("%d device verdicts for %d devices", len(v.Devices), len(in.Devices))
		}
		if p != Counting {
			if want := modelStrictReady(in); v.Ready != want {
				t.Fatalf("Strict Ready = %t, model says %t", v.Ready, want)
			}
		} else if want := modelCountingReady(in); v.Ready != want {
			t.Fatalf("Counting Ready = %t, model says %t", v.Ready, want)
		}
	})
}
