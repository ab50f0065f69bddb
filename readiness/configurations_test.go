package readiness

import (
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/netiptest"
)

// The five network configurations every provider meets, each observed while
// pending and once ready, under both policies. On these the policies agree;
// policy_test.go shows where they do not.
func TestConfigurations(t *testing.T) {
	dhcpUplink := []Device{{MAC: mac0, DHCP4: true}, {MAC: mac1, Static: netiptest.Addrs("192.0.2.10")}} // uplink: 192.0.2.10/32
	oneDHCP := []Device{{MAC: mac0, DHCP4: true}}
	twoDHCP := []Device{{MAC: mac0, DHCP4: true}, {MAC: mac1, DHCP4: true}}
	oneStatic := []Device{{MAC: mac0, Static: netiptest.Addrs("10.0.0.10")}}
	twoStatic := []Device{{MAC: mac0, Static: netiptest.Addrs("10.0.0.10")}, {MAC: mac1, Static: netiptest.Addrs("10.1.0.10")}}

	tests := []struct {
		name           string
		in             Input
		strict, legacy []string
	}{
		{
			name: "dhcp and static uplink/pending: only the uplink is reported",
			in:   Input{Devices: dhcpUplink, NICs: []NIC{{MAC: mac0}, {MAC: mac1, Addrs: netiptest.Addrs("192.0.2.10")}}},
			strict: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp4",
				"addresses: [192.0.2.10]",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp4 match=MAC",
				"nic 1 52:54:00:12:34:57 Satisfied match=MAC +192.0.2.10@hv",
			},
			legacy: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp4; non-static addresses counted: 0 of 1",
				"addresses: [192.0.2.10]",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp4 match=MAC",
				"nic 1 52:54:00:12:34:57 Satisfied match=MAC +192.0.2.10@hv",
			},
		},
		{
			name: "dhcp and static uplink/ready",
			in:   Input{Devices: dhcpUplink, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.0.0.5")}, {MAC: mac1, Addrs: netiptest.Addrs("192.0.2.10")}}},
			strict: []string{
				"ready=true reason=",
				"addresses: [10.0.0.5 192.0.2.10]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.5@hv",
				"nic 1 52:54:00:12:34:57 Satisfied match=MAC +192.0.2.10@hv",
			},
			legacy: []string{
				"ready=true reason=",
				"addresses: [10.0.0.5 192.0.2.10]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.5@hv",
				"nic 1 52:54:00:12:34:57 Satisfied match=MAC +192.0.2.10@hv",
			},
		},
		{
			name: "one dhcp/pending: NIC reported without address",
			in:   Input{Devices: oneDHCP, NICs: []NIC{{MAC: mac0}}},
			strict: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp4",
				"addresses: []",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp4 match=MAC",
			},
			legacy: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp4; non-static addresses counted: 0 of 1",
				"addresses: []",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp4 match=MAC",
			},
		},
		{
			name: "one dhcp/ready",
			in:   Input{Devices: oneDHCP, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.0.0.5")}}},
			strict: []string{
				"ready=true reason=",
				"addresses: [10.0.0.5]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.5@hv",
			},
			legacy: []string{
				"ready=true reason=",
				"addresses: [10.0.0.5]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.5@hv",
			},
		},
		{
			name: "two dhcp/pending: the second NIC has no address yet",
			in:   Input{Devices: twoDHCP, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.0.0.5")}, {MAC: mac1}}},
			strict: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 1 (52:54:00:12:34:57): waiting for dhcp4",
				"addresses: [10.0.0.5]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.5@hv",
				"nic 1 52:54:00:12:34:57 Pending wait=dhcp4 match=MAC",
			},
			legacy: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp4; nic 1 (52:54:00:12:34:57): waiting for dhcp4; non-static addresses counted: 1 of 2",
				"addresses: [10.0.0.5]",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp4 match=MAC +10.0.0.5@hv",
				"nic 1 52:54:00:12:34:57 Pending wait=dhcp4 match=MAC",
			},
		},
		{
			name: "two dhcp/ready",
			in:   Input{Devices: twoDHCP, NICs: []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.0.0.5")}, {MAC: mac1, Addrs: netiptest.Addrs("10.1.0.5")}}},
			strict: []string{
				"ready=true reason=",
				"addresses: [10.0.0.5 10.1.0.5]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.5@hv",
				"nic 1 52:54:00:12:34:57 Satisfied match=MAC +10.1.0.5@hv",
			},
			legacy: []string{
				"ready=true reason=",
				"addresses: [10.0.0.5 10.1.0.5]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.5@hv",
				"nic 1 52:54:00:12:34:57 Satisfied match=MAC +10.1.0.5@hv",
			},
		},
		{
			name: "one static/pending: no sign of life yet",
			in:   Input{Devices: oneStatic, NICs: []NIC{{MAC: mac0}}},
			strict: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: waiting for a first usable address from the hypervisor or the node",
				"addresses: []",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC",
			},
			legacy: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: waiting for a first address from the hypervisor or the node",
				"addresses: []",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC",
			},
		},
		{
			name: "one static/ready: the Node shows its address before the guest tools",
			in:   Input{Devices: oneStatic, NICs: []NIC{{MAC: mac0}}, NodeAddrs: netiptest.Addrs("10.0.0.10")},
			strict: []string{
				"ready=true reason=",
				"addresses: [10.0.0.10]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.10@node",
			},
			legacy: []string{
				"ready=true reason=",
				"addresses: [10.0.0.10]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC",
			},
		},
		{
			name: "two static/pending: nothing reported",
			in:   Input{Devices: twoStatic},
			strict: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: waiting for a first usable address from the hypervisor or the node",
				"addresses: []",
				"nic 0 52:54:00:12:34:56 Satisfied match=None",
				"nic 1 52:54:00:12:34:57 Satisfied match=None",
			},
			legacy: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: waiting for a first address from the hypervisor or the node",
				"addresses: []",
				"nic 0 52:54:00:12:34:56 Satisfied match=None",
				"nic 1 52:54:00:12:34:57 Satisfied match=None",
			},
		},
		{
			name: "two static/ready: one NIC reported",
			in:   Input{Devices: twoStatic, NICs: []NIC{{MAC: mac1, Addrs: netiptest.Addrs("10.1.0.10")}}},
			strict: []string{
				"ready=true reason=",
				"addresses: [10.1.0.10]",
				"nic 0 52:54:00:12:34:56 Satisfied match=None",
				"nic 1 52:54:00:12:34:57 Satisfied match=MAC +10.1.0.10@hv",
			},
			legacy: []string{
				"ready=true reason=",
				"addresses: [10.1.0.10]",
				"nic 0 52:54:00:12:34:56 Satisfied match=None",
				"nic 1 52:54:00:12:34:57 Satisfied match=MAC +10.1.0.10@hv",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkVerdict(t, tt.in, Strict, tt.strict)
			checkVerdict(t, tt.in, Counting, tt.legacy)
		})
	}
}
