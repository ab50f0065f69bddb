package readiness

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/vmnetkit/vmnetkit/internal/netiptest"
)

// TestUnusableAddressTable protects the package's one table of unusable
// addresses (IgnoreReason, verdict.go), a case per row and the edges of each block: every
// address that cannot be a host's own unicast address is never credited to
// a DHCP device, makes no machine ready, and is rejected as a static
// address, with the same reason; the first and last usable addresses beside
// each block stay usable, and so does 240.0.0.0/4 but its last address
// (FIELD-CASES.md, case 1: a static uplink 240.255.0.1/32).
func TestUnusableAddressTable(t *testing.T) {
	const usable = IgnoreReason(-1)
	tests := []struct {
		name string
		addr string
		why  IgnoreReason // usable: credited and accepted
	}{
		{"limited broadcast", "255.255.255.255", IgnoredBroadcast},
		{"limited broadcast, IPv4-mapped report", "::ffff:255.255.255.255", IgnoredBroadcast},
		{"usable: 240.0.0.0/4, first", "240.0.0.0", usable},
		{"usable: 240.0.0.0/4, the field's uplink", "240.255.0.1", usable},
		{"usable: 240.0.0.0/4, inside", "250.1.2.3", usable},
		{"usable: 240.0.0.0/4, last before broadcast", "255.255.255.254", usable},
		{"usable: 240.0.0.0/4, IPv4-mapped report", "::ffff:240.255.0.1", usable},
		{"this network 0.0.0.0/8, not unspecified", "0.0.0.1", IgnoredThisNetwork},
		{"this network 0.0.0.0/8, last", "0.255.255.255", IgnoredThisNetwork},
		{"IPv4 unspecified", "0.0.0.0", IgnoredUnspecified},
		{"IPv6 unspecified", "::", IgnoredUnspecified},
		{"IPv4 loopback", "127.0.0.1", IgnoredLoopback},
		{"IPv4 loopback, last", "127.255.255.255", IgnoredLoopback},
		{"IPv6 loopback", "::1", IgnoredLoopback},
		{"IPv4 link-local", "169.254.0.1", IgnoredLinkLocal},
		{"IPv4 link-local, last", "169.254.255.255", IgnoredLinkLocal},
		{"IPv6 link-local, last of fe80::/10", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", IgnoredLinkLocal},
		{"IPv6 multicast, first", "ff00::", IgnoredMulticast},
		{"IPv6 link-local", "fe80::1", IgnoredLinkLocal},
		{"IPv4 multicast, first", "224.0.0.0", IgnoredMulticast},
		{"IPv4 multicast, last", "239.255.255.255", IgnoredMulticast},
		{"IPv6 multicast", "ff02::1", IgnoredMulticast},
		{"usable: first after this network", "1.0.0.0", usable},
		{"usable: last before loopback", "126.255.255.255", usable},
		{"usable: first after loopback", "128.0.0.0", usable},
		{"usable: last before IPv4 link-local", "169.253.255.255", usable},
		{"usable: first after IPv4 link-local", "169.255.0.0", usable},
		{"usable: first after IPv6 link-local", "fec0::1", usable},
		{"usable: last before IPv6 multicast", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", usable},
		{"usable: the CNI's fake IP", "100.64.254.254", usable},
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
			if diff := cmp.Diff(wantCredited, v.Devices[0].Credited, cmpopts.EquateComparable(netip.Addr{})); diff != "" {
				t.Errorf("credited (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantIgnored, v.Devices[0].Ignored, cmpopts.EquateComparable(netip.Addr{})); diff != "" {
				t.Errorf("ignored (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantAddrs, v.Addresses, cmpopts.EquateComparable(netip.Addr{})); diff != "" {
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

// TestUnusableAddressTableInvalidRow is the table's first row: an empty
// report (the zero netip.Addr) is ignored as invalid, never credited.
func TestUnusableAddressTableInvalidRow(t *testing.T) {
	v := Evaluate(Input{Devices: []Device{{MAC: mac0, DHCP4: true}}, NICs: []NIC{{MAC: mac0, Addrs: []netip.Addr{{}}}}}, Strict)
	want := []IgnoredAddr{{netip.Addr{}, Hypervisor, IgnoredInvalid}}
	if diff := cmp.Diff(want, v.Devices[0].Ignored, cmpopts.EquateComparable(netip.Addr{})); diff != "" {
		t.Errorf("ignored (-want +got):\n%s", diff)
	}
	if v.Ready {
		t.Error("Ready with only an empty report")
	}
}

// TestAddressOutsideTableIsUsable checks the table from the other side: any
// address outside its blocks (modelNotUnicast, written from the table, not
// from classify) is usable under both policies, from a NIC and from the
// Node, and is accepted as a static address; any address inside them is
// refused by Strict and as a static address. Generated addresses lean
// towards the edges of the blocks and towards 240.0.0.0/4.
func TestAddressOutsideTableIsUsable(t *testing.T) {
	edges := netiptest.Addrs("0.255.255.255", "1.0.0.0", "126.255.255.255", "127.0.0.0", "128.0.0.0",
		"169.253.255.255", "169.254.0.0", "169.255.0.0", "223.255.255.255", "224.0.0.0", "239.255.255.255",
		"240.0.0.0", "240.255.0.1", "255.255.255.254", "255.255.255.255", "::", "::1", "::2",
		"fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fe80::", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fec0::",
		"feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "ff00::")
	rapid.Check(t, func(t *rapid.T) {
		var a netip.Addr
		switch rapid.IntRange(0, 3).Draw(t, "kind") {
		case 0:
			a = rapid.SampledFrom(edges).Draw(t, "edge")
		case 1:
			b := rapid.SliceOfN(rapid.Byte(), 4, 4).Draw(t, "ipv4")
			a = netip.AddrFrom4([4]byte(b))
		case 2:
			b := rapid.SliceOfN(rapid.Byte(), 3, 3).Draw(t, "in240")
			a = netip.AddrFrom4([4]byte{240 | b[0]&0x0f, b[1], b[2], rapid.Byte().Draw(t, "last")})
		default:
			b := rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "ipv6")
			a = netip.AddrFrom16([16]byte(b)).Unmap()
		}
		usable := !modelNotUnicast(a)
		dev := Device{MAC: mac0, DHCP4: a.Is4(), DHCP6: a.Is6()}
		for _, p := range []Policy{Strict, Counting} {
			nic := Evaluate(Input{Devices: []Device{dev}, NICs: []NIC{{MAC: mac0, Addrs: []netip.Addr{a}}}}, p)
			node := Evaluate(Input{Devices: []Device{dev}, NICs: []NIC{{MAC: mac0}}, NodeAddrs: []netip.Addr{a}}, p)
			if usable && (!nic.Ready || !node.Ready) {
				t.Fatalf("%s is outside the table, but Evaluate(%s) is not ready: from a NIC %t, from the Node %t", a, p, nic.Ready, node.Ready)
			}
			if !usable && p == Strict && (nic.Ready || node.Ready) {
				t.Fatalf("%s is in the table, but Strict is ready: from a NIC %t, from the Node %t", a, nic.Ready, node.Ready)
			}
		}
		if _, err := ParseStaticAddr(a.String()); (err == nil) != usable {
			t.Fatalf("ParseStaticAddr(%q) error = %v; usable by the table: %t", a, err, usable)
		}
	})
}
