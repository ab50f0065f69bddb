package readiness

import (
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/netiptest"
)

// TestStrictDualStackDHCP pins the rule a dual-stack VM needs (rules 1
// and 2): a DHCPv6 device is satisfied by a usable global IPv6 address
// only, never by a link-local (fe80::/10) or the unspecified address, and
// a device that wants DHCPv4 and DHCPv6 waits until both families have a
// usable address, whatever else is reported (the Node's link-local address
// included).
func TestStrictDualStackDHCP(t *testing.T) {
	dhcp6 := []Device{{MAC: mac0, DHCP6: true}}
	dual := []Device{{MAC: mac0, DHCP4: true, DHCP6: true}}
	tests := []struct {
		name string
		in   Input
		want []string
	}{
		{
			name: "dhcp6 with only a link-local address waits",
			in:   Input{Devices: dhcp6, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("fe80::5054:ff:fe12:3456")}}},
			want: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp6",
				"addresses: []",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp6 match=MAC -fe80::5054:ff:fe12:3456@hv(link-local)",
			},
		},
		{
			name: "dhcp6 with only the unspecified address waits",
			in:   Input{Devices: dhcp6, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("::")}}},
			want: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp6",
				"addresses: []",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp6 match=MAC -::@hv(unspecified)",
			},
		},
		{
			name: "dhcp6 with a global address is ready",
			in:   Input{Devices: dhcp6, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("fd00:30::1:0")}}},
			want: []string{
				"ready=true reason=",
				"addresses: [fd00:30::1:0]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +fd00:30::1:0@hv",
			},
		},
		{
			name: "dual stack with IPv4 and only a link-local IPv6 address waits for dhcp6",
			in:   Input{Devices: dual, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.30.0.11", "fe80::5054:ff:fe12:3456")}}},
			want: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp6",
				"addresses: [10.30.0.11]",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp6 match=MAC +10.30.0.11@hv -fe80::5054:ff:fe12:3456@hv(link-local)",
			},
		},
		{
			name: "dual stack with IPv4, the unspecified IPv6 address and a link-local Node address waits for dhcp6",
			in: Input{Devices: dual, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.30.0.11", "::")}},
				NodeAddrs: netiptest.Addrs("fe80::1")},
			want: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp6",
				"addresses: [10.30.0.11]",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp6 match=MAC +10.30.0.11@hv -::@hv(unspecified)",
				"ignored: fe80::1@node(link-local)",
			},
		},
		{
			name: "dual stack with only a global IPv6 address waits for dhcp4",
			in:   Input{Devices: dual, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("fd00:30::1:0", "fe80::1")}}},
			want: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp4",
				"addresses: [fd00:30::1:0]",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp4 match=MAC +fd00:30::1:0@hv -fe80::1@hv(link-local)",
			},
		},
		{
			name: "dual stack with both families is ready, the link-local address not credited",
			in:   Input{Devices: dual, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("fe80::1", "10.30.0.11", "fd00:30::1:0")}}},
			want: []string{
				"ready=true reason=",
				"addresses: [10.30.0.11 fd00:30::1:0]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.30.0.11@hv +fd00:30::1:0@hv -fe80::1@hv(link-local)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkVerdict(t, tt.in, Strict, tt.want)
		})
	}
}
