package readiness

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vmnetkit/vmnetkit/internal/netiptest"
)

// Each way the legacy Counting rule differs from Strict, shown on one input.
// Counting's documentation lists the same differences.
func TestPolicyDifferences(t *testing.T) {
	oneDHCP := []Device{{MAC: mac0, DHCP4: true}}
	twoDHCP := []Device{{MAC: mac0, DHCP4: true}, {MAC: mac1, DHCP4: true}}
	dhcpUplink := []Device{{MAC: mac0, DHCP4: true}, {MAC: mac1, Static: netiptest.Addrs("192.0.2.10")}}
	tests := []struct {
		name             string
		in               Input
		strict, counting string // "ready" or the Message of a not-ready verdict
	}{
		{
			name:     "an IPv4 link-local address counts",
			in:       Input{Devices: oneDHCP, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("169.254.10.20")}}},
			strict:   "nic 0 (52:54:00:12:34:56): waiting for dhcp4",
			counting: "ready",
		},
		{
			name:     "an IPv6 link-local address counts for a dhcp4 device",
			in:       Input{Devices: oneDHCP, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("fe80::5054:ff:fe12:3456")}}},
			strict:   "nic 0 (52:54:00:12:34:56): waiting for dhcp4",
			counting: "ready",
		},
		{
			name:     "loopback counts",
			in:       Input{Devices: oneDHCP, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("127.0.0.1")}}},
			strict:   "nic 0 (52:54:00:12:34:56): waiting for dhcp4",
			counting: "ready",
		},
		{
			name:     "multicast and unspecified count",
			in:       Input{Devices: oneDHCP, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("0.0.0.0", "ff02::1")}}},
			strict:   "nic 0 (52:54:00:12:34:56): waiting for dhcp4",
			counting: "ready",
		},
		{
			name:     "broadcast and this-network addresses count",
			in:       Input{Devices: oneDHCP, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("255.255.255.255", "0.1.2.3")}}},
			strict:   "nic 0 (52:54:00:12:34:56): waiting for dhcp4",
			counting: "ready",
		},
		{
			name: "a virtual IP counts for the second dhcp NIC",
			in: Input{
				Devices: twoDHCP,
				NICs:    []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.0.0.5", "10.0.0.100")}, {MAC: mac1}},
				Ignore:  netiptest.Prefixes("10.0.0.100/32"),
			},
			strict:   "nic 1 (52:54:00:12:34:57): waiting for dhcp4",
			counting: "ready",
		},
		{
			name: "a second address on one dhcp NIC counts for the other",
			in: Input{
				Devices: twoDHCP,
				NICs:    []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.0.0.5", "10.0.0.6")}, {MAC: mac1}},
			},
			strict:   "nic 1 (52:54:00:12:34:57): waiting for dhcp4",
			counting: "ready",
		},
		{
			name: "an unexpected address on the static NIC counts for the dhcp NIC",
			in: Input{
				Devices: dhcpUplink,
				NICs:    []NIC{{MAC: mac0}, {MAC: mac1, Addrs: netiptest.Addrs("192.0.2.10", "10.0.0.77")}},
			},
			strict:   "nic 0 (52:54:00:12:34:56): waiting for dhcp4",
			counting: "ready",
		},
		{
			name: "a NIC outside the spec counts (a container bridge the guest tools report)",
			in: Input{
				Devices: oneDHCP,
				NICs:    []NIC{{MAC: mac0}, {MAC: "02:42:ac:11:00:01", Addrs: netiptest.Addrs("172.17.0.1")}},
			},
			strict:   "nic 0 (52:54:00:12:34:56): waiting for dhcp4",
			counting: "ready",
		},
		{
			name: "the Node is not consulted when enough addresses were reported, even static ones",
			in: Input{
				Devices:   []Device{{MAC: mac0, DHCP4: true}, {MAC: mac1, Static: netiptest.Addrs("192.0.2.10", "192.0.2.11")}},
				NICs:      []NIC{{MAC: mac0}, {MAC: mac1, Addrs: netiptest.Addrs("192.0.2.10", "192.0.2.11")}},
				NodeAddrs: netiptest.Addrs("10.0.0.5"),
			},
			strict:   "ready",
			counting: "nic 0 (52:54:00:12:34:56): waiting for dhcp4; non-static addresses counted: 0 of 1",
		},
		{
			name: "only the Node's first address is consulted",
			in: Input{
				Devices:   twoDHCP,
				NICs:      []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.0.0.5")}, {MAC: mac1}},
				NodeAddrs: netiptest.Addrs("10.0.0.5", "10.1.0.5"),
			},
			strict:   "ready",
			counting: "nic 0 (52:54:00:12:34:56): waiting for dhcp4; nic 1 (52:54:00:12:34:57): waiting for dhcp4; non-static addresses counted: 1 of 2",
		},
		{
			name:     "a link-local Node address counts",
			in:       Input{Devices: oneDHCP, NodeAddrs: netiptest.Addrs("fe80::1")},
			strict:   "nic 0 (52:54:00:12:34:56): waiting for dhcp4",
			counting: "ready",
		},
		{
			name:     "IPv4 satisfies a DHCPv6 device",
			in:       Input{Devices: []Device{{MAC: mac0, DHCP6: true}}, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.0.0.5")}}},
			strict:   "nic 0 (52:54:00:12:34:56): waiting for dhcp6",
			counting: "ready",
		},
		{
			name:     "one address satisfies a dual-stack DHCP device",
			in:       Input{Devices: []Device{{MAC: mac0, DHCP4: true, DHCP6: true}}, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.0.0.5")}}},
			strict:   "nic 0 (52:54:00:12:34:56): waiting for dhcp6",
			counting: "ready",
		},
		{
			name: "an invalid spec is evaluated anyway",
			in: Input{
				Devices: []Device{{MAC: mac0, DHCP4: true}, {MAC: "52-54-00-12-34-56", DHCP4: true}},
				NICs:    []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.0.0.5", "10.0.0.6")}},
			},
			strict:   "nic 1: MAC 52:54:00:12:34:56: duplicate MAC address (nic 0 has it too)",
			counting: "ready",
		},
	}
	outcome := func(v Verdict) string {
		if v.Ready {
			return "ready"
		}
		return v.Message
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := outcome(Evaluate(tt.in, Strict)); got != tt.strict {
				t.Errorf("Strict: got %q, want %q", got, tt.strict)
			}
			if got := outcome(Evaluate(tt.in, Counting)); got != tt.counting {
				t.Errorf("Counting: got %q, want %q", got, tt.counting)
			}
		})
	}
}

// Counting lists Addresses in the order the NICs reported them, then the
// Node's; Strict in device order.
func TestPolicyAddressOrder(t *testing.T) {
	in := Input{
		Devices: []Device{{MAC: mac0, DHCP4: true}, {MAC: mac1, DHCP4: true}},
		NICs:    []NIC{{MAC: mac1, Addrs: netiptest.Addrs("10.1.0.5")}, {MAC: mac0, Addrs: netiptest.Addrs("10.0.0.5")}},
	}
	for _, tt := range []struct {
		p    Policy
		want string
	}{
		{Strict, "[10.0.0.5 10.1.0.5]"},
		{Counting, "[10.1.0.5 10.0.0.5]"},
	} {
		if diff := cmp.Diff(tt.want, fmt.Sprint(Evaluate(in, tt.p).Addresses)); diff != "" {
			t.Errorf("%s Addresses (-want +got):\n%s", tt.p, diff)
		}
	}
}

// The whole Counting verdict, with the Node address it adds.
func TestCountingVerdict(t *testing.T) {
	in := Input{
		Devices: []Device{{MAC: mac0, DHCP4: true}, {MAC: mac1, Static: netiptest.Addrs("192.0.2.10")}, {MAC: mac2}},
		NICs: []NIC{
			{MAC: mac1, Addrs: netiptest.Addrs("192.0.2.10", "", "192.0.2.10")},
			{MAC: "02:42:ac:11:00:01", Addrs: netiptest.Addrs("")},
		},
		NodeAddrs: netiptest.Addrs("", "10.0.0.5", "10.0.0.6"),
		Ignore:    netiptest.Prefixes("10.0.0.0/8"), // not used by Counting
	}
	checkVerdict(t, in, Counting, []string{
		"ready=true reason=",
		"addresses: [192.0.2.10 10.0.0.5]",
		"nic 0 52:54:00:12:34:56 Satisfied match=None",
		"nic 1 52:54:00:12:34:57 Satisfied match=MAC +192.0.2.10@hv -invalid IP@hv(invalid)",
		"nic 2 52:54:00:12:34:58 NotRequired match=None",
		"ignored: invalid IP@hv(invalid)",
	})
}
