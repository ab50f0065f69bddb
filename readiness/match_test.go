package readiness

import (
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/hwaddr"
	"github.com/vmnetkit/vmnetkit/internal/netiptest"
)

func TestMatching(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want []string
	}{
		{
			name: "MACs in any accepted form and case",
			in: Input{
				Devices: []Device{{MAC: "52-54-00-AA-BB-01", DHCP4: true}, {MAC: "5254.00aa.bb02", DHCP4: true}, {MAC: "52:54:00:aa:bb:03", DHCP4: true}},
				NICs: []NIC{
					{MAC: "52:54:00:AA:BB:03", Addrs: netiptest.Addrs("10.0.0.3")},
					{MAC: "5254.00AA.BB01", Addrs: netiptest.Addrs("10.0.0.1")},
					{MAC: "52-54-00-aa-bb-02", Addrs: netiptest.Addrs("10.0.0.2")},
				},
			},
			want: []string{
				"ready=true reason=",
				"addresses: [10.0.0.1 10.0.0.2 10.0.0.3]",
				"nic 0 52:54:00:aa:bb:01 Satisfied match=MAC +10.0.0.1@hv",
				"nic 1 52:54:00:aa:bb:02 Satisfied match=MAC +10.0.0.2@hv",
				"nic 2 52:54:00:aa:bb:03 Satisfied match=MAC +10.0.0.3@hv",
			},
		},
		{
			name: "by position when either side has no MAC",
			in: Input{
				Devices: []Device{{DHCP4: true}, {MAC: mac1, DHCP4: true}},
				NICs:    []NIC{{MAC: mac2, Addrs: netiptest.Addrs("10.0.0.1")}, {Addrs: netiptest.Addrs("10.0.0.2")}},
			},
			want: []string{
				"ready=true reason=",
				"addresses: [10.0.0.1 10.0.0.2]",
				"nic 0 Satisfied match=Position +10.0.0.1@hv",
				"nic 1 52:54:00:12:34:57 Satisfied match=Position +10.0.0.2@hv",
			},
		},
		{
			name: "never by position when both have a MAC and they differ",
			in: Input{
				Devices: []Device{{MAC: mac0, DHCP4: true}},
				NICs:    []NIC{{MAC: mac1, Addrs: netiptest.Addrs("172.17.0.1")}},
			},
			want: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp4",
				"addresses: []",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp4 match=None",
				"ignored: 172.17.0.1@hv(on a NIC that matches no device)",
			},
		},
		{
			name: "a NIC another device owns by MAC is not taken by position",
			in: Input{
				Devices: []Device{{DHCP4: true}, {MAC: mac0, DHCP4: true}},
				NICs:    []NIC{{MAC: mac0, Addrs: netiptest.Addrs("10.0.0.1")}},
			},
			want: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0: waiting for dhcp4",
				"addresses: [10.0.0.1]",
				"nic 0 Pending wait=dhcp4 match=None",
				"nic 1 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.1@hv",
			},
		},
		{
			name: "an unparsable NIC MAC matches nothing but still has a MAC",
			in: Input{
				Devices: []Device{{MAC: mac0, DHCP4: true}, {DHCP4: true}},
				NICs:    []NIC{{MAC: "garbage", Addrs: netiptest.Addrs("10.0.0.1")}, {MAC: "zz:zz:zz:zz:zz:zz", Addrs: netiptest.Addrs("10.0.0.2")}},
			},
			want: []string{
				"ready=false reason=WaitingForNetworkAddresses",
				"message: nic 0 (52:54:00:12:34:56): waiting for dhcp4",
				"addresses: [10.0.0.2]",
				"nic 0 52:54:00:12:34:56 Pending wait=dhcp4 match=None",
				"nic 1 Satisfied match=Position +10.0.0.2@hv",
				"ignored: 10.0.0.1@hv(on a NIC that matches no device)",
			},
		},
		{
			name: "several NICs with one MAC all belong to the device",
			in: Input{
				Devices: []Device{{MAC: mac0, DHCP4: true, DHCP6: true}},
				NICs:    []NIC{{MAC: mac0, Addrs: netiptest.Addrs("2001:db8::1")}, {MAC: mac0, Addrs: netiptest.Addrs("10.0.0.1")}},
			},
			want: []string{
				"ready=true reason=",
				"addresses: [10.0.0.1 2001:db8::1]",
				"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.1@hv +2001:db8::1@hv",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkVerdict(t, tt.in, Strict, tt.want) })
	}
}

func TestCanonicalMAC(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"52:54:00:12:34:56", "52:54:00:12:34:56", true},
		{"52:54:00:AB:cd:EF", "52:54:00:ab:cd:ef", true},
		{"52-54-00-AB-CD-EF", "52:54:00:ab:cd:ef", true},
		{"5254.00ab.cdef", "52:54:00:ab:cd:ef", true},
		{"5254.00AB.CDEF", "52:54:00:ab:cd:ef", true},
		{"", "", false},
		{"525400abcdef", "52:54:00:ab:cd:ef", true},
		{"52:54:00-ab-cd-ef", "", false},
		{"52:54:00:ab:cd:eg", "", false},
		{"52:54:00:ab:cd:ef:01", "", false},
		{"5254:00ab:cdef", "", false},
		{"52.54.00.ab.cd.ef", "", false},
		{"2:54:00:ab:cd:ef0", "", false},
		{" 52:54:00:ab:cd:e", "", false},
		{"00:00:5e:00:53:01:02:03", "", false},
	}
	for _, tt := range tests {
		got, ok := hwaddr.Canonical(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("hwaddr.Canonical(%q) = %q, %t; want %q, %t", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// Found by the property test: two NICs with one MAC reporting one address
// in two forms gave a verdict that depended on their order.
func TestSameMACNICOrder(t *testing.T) {
	devs := []Device{{MAC: mac0, DHCP4: true}}
	a := NIC{MAC: mac0, Addrs: netiptest.Addrs("2001:db8::5", "::ffff:10.0.0.5")}
	b := NIC{MAC: "52-54-00-12-34-56", Addrs: netiptest.Addrs("2001:db8::5%eth0", "10.0.0.5")}
	want := []string{
		"ready=true reason=",
		"addresses: [10.0.0.5]",
		"nic 0 52:54:00:12:34:56 Satisfied match=MAC +10.0.0.5@hv" +
			" -2001:db8::5@hv(family not wanted by the device) -2001:db8::5%eth0@hv(family not wanted by the device)",
	}
	checkVerdict(t, Input{Devices: devs, NICs: []NIC{a, b}}, Strict, want)
	checkVerdict(t, Input{Devices: devs, NICs: []NIC{b, a}}, Strict, want)
}
