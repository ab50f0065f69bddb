package readiness

import (
	"net/netip"
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/netiptest"
)

// TestFieldCase1DHCPAndStatic240Uplink runs case 1 of docs/field-cases.md: a
// Cluster API VM whose NIC 0 takes DHCPv4 from the site's server
// (10.255.0.0/16) and whose NIC 1 is the static /32 uplink 240.255.0.1 of an
// overlay CNI, which also uses the fake IP 100.64.254.254/32. The four rows
// of the field's table, under both policies; the two policies agree on all
// four. The last two cases are where they differ: the guest also reports the
// CNI's interface, which is in no spec, holding the fake IP. Counting
// counts every address the guest reports, so the fake IP stands in for the
// DHCP NIC's missing lease; Strict credits only a NIC's own device.
func TestFieldCase1DHCPAndStatic240Uplink(t *testing.T) {
	const (
		dhcpMAC   = "00:50:56:a1:00:01" // NIC 0, IPv4 DHCP
		uplinkMAC = "00:50:56:a1:00:02" // NIC 1, static 240.255.0.1/32
		cniMAC    = "6e:7a:1c:00:00:01" // the CNI's own interface, in no spec
	)
	uplink, err := ParseDevice(TypeIPv4, uplinkMAC, []string{"240.255.0.1/32"})
	if err != nil {
		t.Fatalf("the field's static uplink is refused: %v", err)
	}
	dhcp, err := ParseDevice(TypeIPv4DHCP, dhcpMAC, nil)
	if err != nil {
		t.Fatal(err)
	}
	devices := []Device{dhcp, uplink}
	nics := func(nic0 []string, nic1 ...string) []NIC {
		return []NIC{{MAC: dhcpMAC, Addrs: netiptest.Addrs(nic0...)}, {MAC: uplinkMAC, Addrs: netiptest.Addrs(nic1...)}}
	}
	cniNIC := NIC{MAC: cniMAC, Addrs: netiptest.Addrs("100.64.254.254")}

	tests := []struct {
		name                 string
		nics                 []NIC
		node                 []netip.Addr
		wantStrict, wantLegy bool
	}{
		{
			name: "row 1: NIC 0 nothing, NIC 1 240.255.0.1: the DHCP NIC has nothing",
			nics: nics(nil, "240.255.0.1"),
		},
		{
			name:       "row 2: NIC 0 10.255.67.5, NIC 1 240.255.0.1",
			nics:       nics([]string{"10.255.67.5"}, "240.255.0.1"),
			wantStrict: true, wantLegy: true,
		},
		{
			name:       "row 3: NICs report nothing, the Node reports 10.255.67.5 (the DHCP NIC's)",
			nics:       nics(nil),
			node:       netiptest.Addrs("10.255.67.5"),
			wantStrict: true, wantLegy: true,
		},
		{
			name: "row 4: NICs report nothing, the Node reports only 240.255.0.1 (the static NIC's)",
			nics: nics(nil),
			node: netiptest.Addrs("240.255.0.1"),
		},
		{
			name:     "differs: row 1 with the CNI's fake IP reported on its own interface",
			nics:     append(nics(nil, "240.255.0.1"), cniNIC),
			wantLegy: true, // Counting: 2 addresses for 2 devices, 1 not static
		},
		{
			name:       "row 2 with the CNI's fake IP reported on its own interface",
			nics:       append(nics([]string{"10.255.67.5"}, "240.255.0.1"), cniNIC),
			wantStrict: true, wantLegy: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Devices: devices, NICs: tt.nics, NodeAddrs: tt.node}
			for _, p := range []struct {
				policy Policy
				want   bool
			}{{Strict, tt.wantStrict}, {Counting, tt.wantLegy}} {
				v := Evaluate(in, p.policy)
				if v.Ready != p.want {
					t.Errorf("Evaluate(%s).Ready = %t, want %t\n%s", p.policy, v.Ready, p.want, render(v))
				}
				if len(v.Problems) > 0 {
					t.Errorf("Evaluate(%s) finds the field's spec invalid: %v", p.policy, v.Problems)
				}
			}
		})
	}

	// The CNI's fake IP is not the VM's: a provider that lists it in
	// Input.Ignore keeps it out of Strict's verdict even on a spec NIC.
	in := Input{Devices: devices, NICs: nics([]string{"100.64.254.254"}, "240.255.0.1"), Ignore: netiptest.Prefixes("100.64.254.254/32")}
	if v := Evaluate(in, Strict); v.Ready {
		t.Errorf("the fake IP on the DHCP NIC, ignored, made the VM ready:\n%s", render(v))
	}
}
