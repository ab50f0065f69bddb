package readiness

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNonUnicastAddressesAreNeverUsable protects the package's one list of
// unusable addresses: every address that cannot be a host's own unicast
// address is never credited to a DHCP device, makes no machine ready, and is
// rejected as a static address, with the same reason; the first and last
// usable addresses beside each block stay usable.
func TestNonUnicastAddressesAreNeverUsable(t *testing.T) {
	const usable = IgnoreReason(-1)
	tests := []struct {
		name string
		addr string
		why  IgnoreReason // usable: credited and accepted
	}{
		{"limited broadcast", "255.255.255.255", IgnoredBroadcast},
		{"limited broadcast, IPv4-mapped report", "::ffff:255.255.255.255", IgnoredBroadcast},
		{"reserved 240.0.0.0/4, first", "240.0.0.0", IgnoredReserved},
		{"reserved 240.0.0.0/4, inside", "250.1.2.3", IgnoredReserved},
		{"reserved 240.0.0.0/4, last before broadcast", "255.255.255.254", IgnoredReserved},
		{"this network 0.0.0.0/8, not unspecified", "0.0.0.1", IgnoredThisNetwork},
		{"this network 0.0.0.0/8, last", "0.255.255.255", IgnoredThisNetwork},
		{"IPv4 unspecified", "0.0.0.0", IgnoredUnspecified},
		{"IPv6 unspecified", "::", IgnoredUnspecified},
		{"IPv4 loopback", "127.0.0.1", IgnoredLoopback},
		{"IPv4 loopback, last", "127.255.255.255", IgnoredLoopback},
		{"IPv6 loopback", "::1", IgnoredLoopback},
		{"IPv4 link-local", "169.254.0.1", IgnoredLinkLocal},
		{"IPv6 link-local", "fe80::1", IgnoredLinkLocal},
		{"IPv4 multicast, first", "224.0.0.0", IgnoredMulticast},
		{"IPv4 multicast, last", "239.255.255.255", IgnoredMulticast},
		{"IPv6 multicast", "ff02::1", IgnoredMulticast},
		{"usable: first after this network", "1.0.0.0", usable},
		{"usable: last before multicast", "223.255.255.255", usable},
		{"usable: private", "10.0.0.5", usable},
		{"usable: shared address space", "100.64.0.1", usable},
		{"usable: global IPv6", "2001:db8::5", usable},
		{"usable: unique local IPv6", "fd00::5", usable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := netip.MustParseAddr(tt.addr)
			plain := a.Unmap()
			in := Input{
				Devices: []Device{{MAC: mac0, DHCP4: plain.Is4(), DHCP6: plain.Is6()}},
				NICs:    []NIC{{MAC: mac0, Addrs: []netip.Addr{a}}},
			}
			v := Evaluate(in, Strict)
			var wantCredited []CreditedAddr
			var wantIgnored []IgnoredAddr
			var wantAddrs []netip.Addr
			if tt.why == usable {
				wantCredited = []CreditedAddr{{plain, Hypervisor}}
				wantAddrs = []netip.Addr{plain}
			} else {
				wantIgnored = []IgnoredAddr{{a, Hypervisor, tt.why}}
			}
			if diff := cmp.Diff(wantCredited, v.Devices[0].Credited, cmp.Comparer(func(x, y netip.Addr) bool { return x == y })); diff != "" {
				t.Errorf("credited (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantIgnored, v.Devices[0].Ignored, cmp.Comparer(func(x, y netip.Addr) bool { return x == y })); diff != "" {
				t.Errorf("ignored (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantAddrs, v.Addresses, cmp.Comparer(func(x, y netip.Addr) bool { return x == y })); diff != "" {
				t.Errorf("Addresses (-want +got):\n%s", diff)
			}
			if v.Ready != (tt.why == usable) {
				t.Errorf("Ready = %t with only %s reported", v.Ready, a)
			}

			// The Node's report is judged by the same list.
			node := Evaluate(Input{Devices: in.Devices, NodeAddrs: []netip.Addr{a}}, Strict)
			if node.Ready != (tt.why == usable) {
				t.Errorf("Ready = %t with only Node address %s", node.Ready, a)
			}

			if a.Is4In6() {
				return // a static address is never IPv4-mapped; its own test
			}
			_, err := ParseStaticAddr(tt.addr)
			switch {
			case tt.why == usable && err != nil:
				t.Errorf("ParseStaticAddr(%q) = %v, want it accepted", tt.addr, err)
			case tt.why != usable && (err == nil || !strings.HasSuffix(err.Error(), ": "+tt.why.String())):
				t.Errorf("ParseStaticAddr(%q) error = %v, want it rejected as %s", tt.addr, err, tt.why)
			}
			sv := Evaluate(Input{Devices: []Device{{MAC: mac0, Static: []netip.Addr{a}}}}, Strict)
			if invalid := sv.Reason == ReasonInvalidNetworkSpec; invalid != (tt.why != usable) {
				t.Errorf("static %s: Reason %q, problems %v", a, sv.Reason, sv.Problems)
			}
		})
	}
}

// TestIgnorePrefixIPv4MappedMatchesUnmapped protects Input.Ignore written
// in IPv4-mapped form: reported addresses are compared unmapped, so the
// prefix is unmapped too (::ffff:192.0.2.0/120 is 192.0.2.0/24), whatever
// form the NIC or the Node reports the address in.
func TestIgnorePrefixIPv4MappedMatchesUnmapped(t *testing.T) {
	tests := []struct {
		name    string
		ignore  string
		addr    string
		ignored bool
	}{
		{"mapped /120 ignores a plain IPv4 address", "::ffff:192.0.2.0/120", "192.0.2.100", true},
		{"mapped /120 ignores a mapped report", "::ffff:192.0.2.0/120", "::ffff:192.0.2.100", true},
		{"mapped /120 leaves an address outside it", "::ffff:192.0.2.0/120", "192.0.3.100", false},
		{"mapped /128 ignores its one address", "::ffff:192.0.2.100/128", "192.0.2.100", true},
		{"mapped /96 ignores every IPv4 address", "::ffff:0.0.0.0/96", "198.51.100.7", true},
		{"mapped /96 leaves IPv6 alone", "::ffff:0.0.0.0/96", "2001:db8::5", false},
		{"mapped, not masked, still matches", "::ffff:192.0.2.1/120", "192.0.2.100", true},
		{"plain IPv4 prefix ignores a mapped report", "192.0.2.0/24", "::ffff:192.0.2.100", true},
		{"::/0 is IPv6 only", "::/0", "192.0.2.100", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := netip.MustParseAddr(tt.addr)
			dev := Device{MAC: mac0, DHCP4: a.Unmap().Is4(), DHCP6: a.Unmap().Is6()}
			ign := []netip.Prefix{netip.MustParsePrefix(tt.ignore)}
			for _, in := range []Input{
				{Devices: []Device{dev}, NICs: []NIC{{MAC: mac0, Addrs: []netip.Addr{a}}}, Ignore: ign},
				{Devices: []Device{dev}, NodeAddrs: []netip.Addr{a}, Ignore: ign},
			} {
				v := Evaluate(in, Strict)
				if v.Ready == tt.ignored {
					t.Errorf("Ignore %s, NICs %v, Node %v: Ready = %t, Addresses %v; want the address ignored: %t",
						tt.ignore, in.NICs, in.NodeAddrs, v.Ready, v.Addresses, tt.ignored)
				}
			}
		})
	}
}
