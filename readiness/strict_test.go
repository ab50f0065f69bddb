package readiness

import (
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/netiptest"
)

// Rule 1: unusable addresses are never credited and are listed with why.
func TestStrictUsableAddresses(t *testing.T) {
	devs := []Device{{MAC: mac0, DHCP4: true, DHCP6: true}}
	tests := []struct {
		name  string
		addrs []string
		ign   []string
		want  []string
	}{
		{
			name:  "every kind of unusable address",
			addrs: []string{"", "0.0.0.0", "::", "127.0.0.1", "::1", "169.254.3.4", "fe80::1%eth0", "224.0.0.1", "ff02::1", "10.9.9.9", "2001:db8:99::1", "::ffff:127.0.0.2"},
			ign:   []string{"10.9.9.0/24", "2001:db8:99::/48"},
			want: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp4 and dhcp6",
				"addresses: []",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp4+dhcp6 match=MAC" +
					" -invalid IP@hv(invalid) -0.0.0.0@hv(unspecified) -10.9.9.9@hv(in an ignored prefix)" +
					" -127.0.0.1@hv(loopback) -169.254.3.4@hv(link-local) -224.0.0.1@hv(multicast)" +
					" -::@hv(unspecified) -::1@hv(loopback) -::ffff:127.0.0.2@hv(loopback)" +
					" -2001:db8:99::1@hv(in an ignored prefix) -fe80::1%eth0@hv(link-local) -ff02::1@hv(multicast)",
			},
		},
		{
			name:  "IPv4-mapped and zoned usable addresses are credited in plain form",
			addrs: []string{"::ffff:10.0.0.5", "2001:db8::5%eth0"},
			want: []string{
				"ready=true reason=",
				"addresses: [10.0.0.5 2001:db8::5]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.5@hv +2001:db8::5@hv",
			},
		},
		{
			name:  "an address reported twice is credited once",
			addrs: []string{"10.0.0.5", "2001:db8::5", "10.0.0.5", "::ffff:10.0.0.5"},
			want: []string{
				"ready=true reason=",
				"addresses: [10.0.0.5 2001:db8::5]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.5@hv +2001:db8::5@hv",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Devices: devs, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs(tt.addrs...)}}}
			if tt.ign != nil {
				in.Ignore = netiptest.Prefixes(tt.ign...)
			}
			checkVerdict(t, in, Strict, tt.want)
		})
	}
}

// Rule 2: a DHCP device is satisfied by a usable address of its family on
// its own NIC that is no device's static address.
func TestStrictDHCPDevices(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want []string
	}{
		{
			name: "dhcp4 is not satisfied by IPv6, and the IPv6 address is not credited",
			in:   Input{Devices: []Device{{MAC: mac0, DHCP4: true}}, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("2001:db8::5")}}},
			want: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp4",
				"addresses: []",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp4 match=MAC -2001:db8::5@hv(family not wanted by the device)",
			},
		},
		{
			name: "dhcp6 is satisfied by IPv6",
			in:   Input{Devices: []Device{{MAC: mac0, DHCP6: true}}, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("fe80::5", "2001:db8::5")}}},
			want: []string{
				"ready=true reason=",
				"addresses: [2001:db8::5]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +2001:db8::5@hv -fe80::5@hv(link-local)",
			},
		},
		{
			name: "dual-stack dhcp needs both families",
			in:   Input{Devices: []Device{{MAC: mac0, DHCP4: true, DHCP6: true}}, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.0.0.5")}}},
			want: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp6",
				"addresses: [10.0.0.5]",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp6 match=MAC +10.0.0.5@hv",
			},
		},
		{
			name: "dhcp4 with a static IPv6 address: the static one is credited too",
			in: Input{
				Devices: []Device{{MAC: mac0, DHCP4: true, Static: netiptest.Addrs("2001:db8::10")}},
				NICs:    []NIC{{MAC: mac0, Addrs: netiptest.Addrs("2001:db8::10", "10.0.0.5", "2001:db8::99")}},
			},
			want: []string{
				"ready=true reason=",
				"addresses: [10.0.0.5 2001:db8::10]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.5@hv +2001:db8::10@hv -2001:db8::99@hv(not one of the device's static addresses)",
			},
		},
		{
			name: "another device's static address on the dhcp NIC does not count",
			in: Input{
				Devices: []Device{{MAC: mac0, DHCP4: true}, {MAC: mac1, Static: netiptest.Addrs("192.0.2.10")}},
				NICs:    []NIC{{MAC: mac0, Addrs: netiptest.Addrs("192.0.2.10")}, {MAC: mac1}},
			},
			want: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp4",
				"addresses: []",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp4 match=MAC -192.0.2.10@hv(static address of another device)",
				"nic 1 52:54:00:12:34:57 Satisfied match=MAC",
			},
		},
		{
			name: "an address on the other dhcp NIC does not count",
			in: Input{
				Devices: []Device{{MAC: mac0, DHCP4: true}, {MAC: mac1, DHCP4: true}},
				NICs:    []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.0.0.5", "10.1.0.5")}, {MAC: mac1}},
			},
			want: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 1 (52:54:00:12:34:57): waiting for dhcp4",
				"addresses: [10.0.0.5 10.1.0.5]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.5@hv +10.1.0.5@hv",
				"nic 1 52:54:00:12:34:57 Pending wait=dhcp4 match=MAC",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkVerdict(t, tt.in, Strict, tt.want) })
	}
}

// Rule 3: Node addresses.
func TestStrictNodeAddresses(t *testing.T) {
	twoDHCP := []Device{{MAC: mac0, DHCP4: true}, {MAC: mac1, DHCP4: true}}
	tests := []struct {
		name string
		in   Input
		want []string
	}{
		{
			name: "a Node address satisfies the only pending dhcp device of its family",
			in: Input{
				Devices:   twoDHCP,
				NICs:      []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.0.0.5")}, {MAC: mac1}},
				NodeAddrs: netiptest.Addrs("10.0.0.5", "10.1.0.5"),
			},
			want: []string{
				"ready=true reason=",
				"addresses: [10.0.0.5 10.1.0.5]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.5@hv",
				"nic 1 52:54:00:12:34:57 Satisfied match=MAC +10.1.0.5@node",
			},
		},
		{
			name: "with two pending dhcp devices a Node address is ambiguous",
			in:   Input{Devices: twoDHCP, NodeAddrs: netiptest.Addrs("10.1.0.5")},
			want: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp4; nic 1 (52:54:00:12:34:57): waiting for dhcp4; node address 10.1.0.5 is ambiguous: 2 devices wait for dhcp4",
				"addresses: []",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp4 match=None",
				"nic 1 52:54:00:12:34:57 Pending wait=dhcp4 match=None",
				"ignored: 10.1.0.5@node(ambiguous: several devices wait for this family)",
			},
		},
		{
			name: "pending devices are counted per family",
			in: Input{
				Devices:   []Device{{MAC: mac0, DHCP4: true}, {MAC: mac1, DHCP6: true}},
				NodeAddrs: netiptest.Addrs("2001:db8::5", "10.0.0.5"),
			},
			want: []string{
				"ready=true reason=",
				"addresses: [2001:db8::5 10.0.0.5]",
				"nic 0 52:54:00:12:34:56 Satisfied match=None +10.0.0.5@node",
				"nic 1 52:54:00:12:34:57 Satisfied match=None +2001:db8::5@node",
			},
		},
		{
			name: "a Node address a NIC reports is decided by that NIC",
			in: Input{
				Devices:   []Device{{MAC: mac0, DHCP4: true}, {MAC: mac1, Static: netiptest.Addrs("192.0.2.10")}},
				NICs:      []NIC{{MAC: mac0}, {MAC: mac1, Addrs: netiptest.Addrs("192.0.2.10", "10.0.0.77")}},
				NodeAddrs: netiptest.Addrs("10.0.0.77"),
			},
			want: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp4",
				"addresses: [192.0.2.10]",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp4 match=MAC",
				"nic 1 52:54:00:12:34:57 Satisfied match=MAC +192.0.2.10@hv -10.0.0.77@hv(not one of the device's static addresses)",
			},
		},
		{
			name: "a static Node address belongs to its device, not to the pending dhcp device",
			in: Input{
				Devices:   []Device{{MAC: mac0, DHCP4: true}, {MAC: mac1, Static: netiptest.Addrs("192.0.2.10")}},
				NodeAddrs: netiptest.Addrs("192.0.2.10"),
			},
			want: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp4",
				"addresses: [192.0.2.10]",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp4 match=None",
				"nic 1 52:54:00:12:34:57 Satisfied match=None +192.0.2.10@node",
			},
		},
		{
			name: "every Node address of the family goes to the single pending device, whatever their order",
			in: Input{
				Devices:   []Device{{MAC: mac0, DHCP4: true}},
				NodeAddrs: netiptest.Addrs("10.0.0.6", "10.0.0.5", "10.0.0.6"),
			},
			want: []string{
				"ready=true reason=",
				"addresses: [10.0.0.6 10.0.0.5]",
				"nic 0 52:54:00:12:34:56 Satisfied match=None +10.0.0.5@node +10.0.0.6@node",
			},
		},
		{
			name: "a Node address no device waits for is the machine's; unusable ones are ignored",
			in: Input{
				Devices:   []Device{{MAC: mac0, DHCP4: true}},
				NICs:      []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.0.0.5")}},
				NodeAddrs: netiptest.Addrs("10.0.0.5", "2001:db8::5", "fe80::5", "10.9.9.9"),
				Ignore:    netiptest.Prefixes("10.9.9.9/32"),
			},
			want: []string{
				"ready=true reason=",
				"addresses: [10.0.0.5 2001:db8::5]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.5@hv",
				"ignored: 10.9.9.9@node(in an ignored prefix)",
				"ignored: fe80::5@node(link-local)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkVerdict(t, tt.in, Strict, tt.want) })
	}
}

// Rule 4: static devices never block readiness; a wrong address on a static
// NIC is a mismatch.
func TestStrictStaticDevices(t *testing.T) {
	static := []Device{{MAC: mac0, Static: netiptest.Addrs("10.0.0.10", "2001:db8::10")}, {MAC: mac1, Static: netiptest.Addrs("10.1.0.10")}}
	tests := []struct {
		name string
		nics []NIC
		want []string
	}{
		{
			name: "own address reported: satisfied, other addresses ignored",
			nics: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.0.0.10", "10.0.0.99")}},
			want: []string{
				"ready=true reason=",
				"addresses: [10.0.0.10]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.10@hv -10.0.0.99@hv(not one of the device's static addresses)",
				"nic 1 52:54:00:12:34:57 Satisfied match=None",
			},
		},
		{
			name: "only a wrong address reported: mismatch, still ready",
			nics: []NIC{{MAC: mac1, Addrs: netiptest.Addrs("10.0.0.99")}},
			want: []string{
				"ready=true reason=",
				"addresses: []",
				"nic 0 52:54:00:12:34:56 Satisfied match=None",
				"nic 1 52:54:00:12:34:57 Mismatch match=MAC -10.0.0.99@hv(not one of the device's static addresses)",
			},
		},
		{
			name: "another device's static address: mismatch (NICs swapped)",
			nics: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.1.0.10")}, {MAC: mac1, Addrs: netiptest.Addrs("10.0.0.10")}},
			want: []string{
				"ready=true reason=",
				"addresses: []",
				"nic 0 52:54:00:12:34:56 Mismatch match=MAC -10.1.0.10@hv(static address of another device)",
				"nic 1 52:54:00:12:34:57 Mismatch match=MAC -10.0.0.10@hv(static address of another device)",
			},
		},
		{
			name: "mismatch is per family: an IPv6 address on an IPv4-only static NIC is not one",
			nics: []NIC{{MAC: mac1, Addrs: netiptest.Addrs("10.1.0.10", "2001:db8:1::abcd")}},
			want: []string{
				"ready=true reason=",
				"addresses: [10.1.0.10]",
				"nic 0 52:54:00:12:34:56 Satisfied match=None",
				"nic 1 52:54:00:12:34:57 Satisfied match=MAC +10.1.0.10@hv -2001:db8:1::abcd@hv(family not wanted by the device)",
			},
		},
		{
			name: "unusable addresses never make a mismatch",
			nics: []NIC{{MAC: mac1, Addrs: netiptest.Addrs("169.254.0.1", "127.0.0.1")}},
			want: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: waiting for a first usable address from the hypervisor or the node",
				"addresses: []",
				"nic 0 52:54:00:12:34:56 Satisfied match=None",
				"nic 1 52:54:00:12:34:57 Satisfied match=MAC -127.0.0.1@hv(loopback) -169.254.0.1@hv(link-local)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkVerdict(t, Input{Devices: static, NICs: tt.nics}, Strict, tt.want)
		})
	}
}

// Rule 5: every DHCP device satisfied, and one sign of life.
func TestStrictSignOfLife(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want []string
	}{
		{
			name: "zero input",
			want: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: waiting for a first usable address from the hypervisor or the node",
				"addresses: []",
			},
		},
		{
			name: "a device that wants no address, and a Node address",
			in:   Input{Devices: []Device{{MAC: mac0}}, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.0.0.5")}}, NodeAddrs: netiptest.Addrs("10.0.0.5")},
			want: []string{
				"ready=true reason=",
				"addresses: []",
				"nic 0 52:54:00:12:34:56 NotRequired match=MAC -10.0.0.5@hv(family not wanted by the device)",
			},
		},
		{
			name: "an address on a NIC outside the spec is a sign of life, never credited",
			in:   Input{Devices: []Device{{MAC: mac0, Static: netiptest.Addrs("10.0.0.10")}}, NICs: []NIC{{MAC: mac0}, {MAC: mac1, Addrs: netiptest.Addrs("172.17.0.1", "fe80::1")}}},
			want: []string{
				"ready=true reason=",
				"addresses: []",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC",
				"ignored: 172.17.0.1@hv(on a NIC that matches no device)",
				"ignored: fe80::1@hv(link-local)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkVerdict(t, tt.in, Strict, tt.want) })
	}
}

// Rule 6: Addresses in device order, IPv4 before IPv6, Node-only last.
func TestStrictAddressOrder(t *testing.T) {
	in := Input{
		Devices: []Device{{MAC: mac0, DHCP4: true, DHCP6: true}, {MAC: mac1, Static: netiptest.Addrs("192.0.2.10")}, {MAC: mac2, DHCP4: true}},
		NICs: []NIC{
			{MAC: mac1, Addrs: netiptest.Addrs("192.0.2.10")},
			{MAC: mac0, Addrs: netiptest.Addrs("2001:db8::5", "10.0.0.5", "2001:db8::4")},
		},
		NodeAddrs: netiptest.Addrs("2001:db8::5", "10.2.0.5", "192.0.2.10", "10.0.0.5"),
	}
	checkVerdict(t, in, Strict, []string{
		"ready=true reason=",
		"addresses: [10.0.0.5 2001:db8::4 2001:db8::5 192.0.2.10 10.2.0.5]",
		"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.5@hv +2001:db8::4@hv +2001:db8::5@hv",
		"nic 1 52:54:00:12:34:57 Satisfied match=MAC +192.0.2.10@hv",
		"nic 2 52:54:00:12:34:58 Satisfied match=None +10.2.0.5@node",
	})
}
