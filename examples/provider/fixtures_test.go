package provider

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	infrav1 "github.com/vmnetkit/vmnetkit/examples/provider/api/v1alpha1"
)

// MACs shared by the tests.
const (
	mac0 = "52:54:00:12:34:56"
	mac1 = "52:54:00:12:34:57"
)

// device is a spec device in the strings a user writes.
func device(typ, mac string, addrs ...string) infrav1.NetworkDevice {
	return infrav1.NetworkDevice{Type: typ, MACAddress: mac, IPAddresses: addrs}
}

// nic is a NIC as the hypervisor reports it.
func nic(mac string, addrs ...string) infrav1.NICStatus {
	return infrav1.NICStatus{MACAddress: mac, IPAddresses: addrs}
}

// configuration is one of the five network shapes every provider meets,
// with a pending and a ready observation of it.
type configuration struct {
	name    string
	devices []infrav1.NetworkDevice
	pending observation
	ready   observation
}

// observation is what the hypervisor and the Node report at one moment.
type observation struct {
	nics      []infrav1.NICStatus
	nodeAddrs []string // InternalIP addresses of the Node; nil: no Node
	// What the adapter must write.
	wantReady   bool
	wantMessage string
	wantAddrs   []string // InternalIP entries of status.addresses
}

var configurations = []configuration{
	{
		name:    "dhcp and static uplink",
		devices: []infrav1.NetworkDevice{device("IPV4_DHCP", mac0), device("IPV4", mac1, "192.0.2.10/32")},
		pending: observation{
			nics:        []infrav1.NICStatus{nic(mac0, "fe80::5054:ff:fe12:3456"), nic(mac1, "192.0.2.10")},
			wantMessage: "nic 0 (52:54:00:12:34:56): waiting for dhcp4",
			wantAddrs:   []string{"192.0.2.10"},
		},
		ready: observation{
			nics:      []infrav1.NICStatus{nic(mac0, "10.0.0.5/24", "fe80::5054:ff:fe12:3456"), nic(mac1, "192.0.2.10/32")},
			wantReady: true,
			wantAddrs: []string{"10.0.0.5", "192.0.2.10"},
		},
	},
	{
		name:    "one dhcp",
		devices: []infrav1.NetworkDevice{device("IPV4_DHCP", mac0)},
		pending: observation{
			nics:        []infrav1.NICStatus{nic(mac0, "169.254.3.4")},
			wantMessage: "nic 0 (52:54:00:12:34:56): waiting for dhcp4",
		},
		ready: observation{
			nics:      []infrav1.NICStatus{nic(mac0, "10.0.0.5")},
			wantReady: true,
			wantAddrs: []string{"10.0.0.5"},
		},
	},
	{
		name:    "two dhcp",
		devices: []infrav1.NetworkDevice{device("IPV4_DHCP", mac0), device("IPV4_DHCP", mac1)},
		pending: observation{
			nics:        []infrav1.NICStatus{nic(mac0, "10.0.0.5"), nic(mac1)},
			wantMessage: "nic 1 (52:54:00:12:34:57): waiting for dhcp4",
			wantAddrs:   []string{"10.0.0.5"},
		},
		ready: observation{
			nics:      []infrav1.NICStatus{nic(mac0, "10.0.0.5"), nic(mac1, "10.1.0.5")},
			wantReady: true,
			wantAddrs: []string{"10.0.0.5", "10.1.0.5"},
		},
	},
	{
		name:    "one static",
		devices: []infrav1.NetworkDevice{device("IPV4", mac0, "10.0.0.10/24")},
		pending: observation{
			nics:        []infrav1.NICStatus{nic(mac0)},
			wantMessage: "waiting for a first usable address from the hypervisor or the node",
		},
		ready: observation{ // the Node shows the address before the guest tools do
			nics:      []infrav1.NICStatus{nic(mac0)},
			nodeAddrs: []string{"10.0.0.10"},
			wantReady: true,
			wantAddrs: []string{"10.0.0.10"},
		},
	},
	{
		name:    "two static",
		devices: []infrav1.NetworkDevice{device("IPV4", mac0, "10.0.0.10"), device("IPV4", mac1, "10.1.0.10/16")},
		pending: observation{
			wantMessage: "waiting for a first usable address from the hypervisor or the node",
		},
		ready: observation{
			nics:      []infrav1.NICStatus{nic(mac0, "10.0.0.10"), nic(mac1, "10.1.0.10")},
			wantReady: true,
			wantAddrs: []string{"10.0.0.10", "10.1.0.10"},
		},
	},
}

// machine is a infrav1.VMMachine named name with the given devices.
func machine(namespace, name string, devices []infrav1.NetworkDevice) *infrav1.VMMachine {
	return &infrav1.VMMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       infrav1.VMMachineSpec{Network: infrav1.NetworkSpec{Devices: devices}},
	}
}

// wantAddresses is status.addresses for a hostname and InternalIP addresses.
func wantAddresses(hostname string, ips []string) []infrav1.MachineAddress {
	out := []infrav1.MachineAddress{{Type: infrav1.MachineHostName, Address: hostname}}
	for _, ip := range ips {
		out = append(out, infrav1.MachineAddress{Type: infrav1.MachineInternalIP, Address: ip})
	}
	return out
}
