package readiness

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/netiptest"
)

func TestInvalidSpec(t *testing.T) {
	tests := []struct {
		name    string
		devices []Device
		is      []error
		want    []string
	}{
		{
			name:    "unparsable MAC",
			devices: []Device{{MAC: mac0, DHCP4: true}, {MAC: "52:54:00:zz:00:01", DHCP4: true}},
			is:      []error{ErrInvalidMAC},
			want: []string{
				"ready=false reason=InvalidNetworkSpec",
				`message: nic 1: MAC "52:54:00:zz:00:01": invalid MAC address`,
				"addresses: []",
				`problem: nic 1: MAC "52:54:00:zz:00:01": invalid MAC address`,
			},
		},
		{
			name:    "two devices with one MAC, in different forms",
			devices: []Device{{MAC: mac0, DHCP4: true}, {MAC: "52-54-00-12-34-56", DHCP4: true}},
			is:      []error{ErrDuplicateMAC},
			want: []string{
				"ready=false reason=InvalidNetworkSpec",
				"message: nic 1: MAC 52:54:00:12:34:56: duplicate MAC address (nic 0 has it too)",
				"addresses: []",
				"problem: nic 1: MAC 52:54:00:12:34:56: duplicate MAC address (nic 0 has it too)",
			},
		},
		{
			name: "static addresses that cannot be a VM's",
			devices: []Device{{Static: []netip.Addr{{}, netip.MustParseAddr("fe80::1%eth0"),
				netip.MustParseAddr("::ffff:10.0.0.1"), netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("169.254.0.1"),
				netip.MustParseAddr("0.0.0.0"), netip.MustParseAddr("ff02::1")}}},
			is: []error{ErrInvalidStatic},
			want: []string{
				"ready=false reason=InvalidNetworkSpec",
				"message: nic 0: static address 0.0.0.0: invalid static address: unspecified; " +
					"nic 0: static address 127.0.0.1: invalid static address: loopback; " +
					"nic 0: static address 169.254.0.1: invalid static address: link-local; " +
					"nic 0: static address ::ffff:10.0.0.1: invalid static address: IPv4-mapped IPv6; " +
					"nic 0: static address fe80::1%eth0: invalid static address: zoned; " +
					"nic 0: static address ff02::1: invalid static address: multicast; " +
					"nic 0: static address invalid IP: invalid static address: zero address",
				"addresses: []",
				"problem: nic 0: static address 0.0.0.0: invalid static address: unspecified",
				"problem: nic 0: static address 127.0.0.1: invalid static address: loopback",
				"problem: nic 0: static address 169.254.0.1: invalid static address: link-local",
				"problem: nic 0: static address ::ffff:10.0.0.1: invalid static address: IPv4-mapped IPv6",
				"problem: nic 0: static address fe80::1%eth0: invalid static address: zoned",
				"problem: nic 0: static address ff02::1: invalid static address: multicast",
				"problem: nic 0: static address invalid IP: invalid static address: zero address",
			},
		},
		{
			name:    "a static address twice, on one device and on two",
			devices: []Device{{Static: netiptest.Addrs("10.0.0.10", "10.0.0.10")}, {Static: netiptest.Addrs("10.0.0.10")}},
			is:      []error{ErrDuplicateStatic},
			want: []string{
				"ready=false reason=InvalidNetworkSpec",
				"message: nic 0: static address 10.0.0.10: duplicate static address (listed twice); nic 1: static address 10.0.0.10: duplicate static address (nic 0 has it too)",
				"addresses: []",
				"problem: nic 0: static address 10.0.0.10: duplicate static address (listed twice)",
				"problem: nic 1: static address 10.0.0.10: duplicate static address (nic 0 has it too)",
			},
		},
		{
			name:    "dhcp and static addresses of the same family",
			devices: []Device{{DHCP4: true, Static: netiptest.Addrs("10.0.0.10", "2001:db8::10")}, {DHCP6: true, Static: netiptest.Addrs("2001:db8::11")}},
			is:      []error{ErrStaticWithDHCP},
			want: []string{
				"ready=false reason=InvalidNetworkSpec",
				"message: nic 0: static address 10.0.0.10: static address of a family the device asks DHCP for; nic 1: static address 2001:db8::11: static address of a family the device asks DHCP for",
				"addresses: []",
				"problem: nic 0: static address 10.0.0.10: static address of a family the device asks DHCP for",
				"problem: nic 1: static address 2001:db8::11: static address of a family the device asks DHCP for",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Devices: tt.devices, NICs: []NIC{{Addrs: netiptest.Addrs("10.0.0.5")}}}
			checkVerdict(t, in, Strict, tt.want)
			v := Evaluate(in, Strict)
			for _, want := range tt.is {
				for _, p := range v.Problems {
					if !errors.Is(p, want) {
						t.Errorf("problem %q is not %v", p.Error(), want)
					}
				}
			}
		})
	}
}

func TestMessage(t *testing.T) {
	in := Input{
		Devices: []Device{
			{MAC: "52-54-00-12-34-56", DHCP4: true, DHCP6: true},
			{Static: netiptest.Addrs("192.0.2.10")},
			{DHCP6: true},
			{},
			{MAC: mac2, DHCP4: true},
		},
		NICs: []NIC{{Addrs: netiptest.Addrs("169.254.1.1")}},
	}
	want := "nic 0 (52:54:00:12:34:56): waiting for dhcp4 and dhcp6; nic 2: waiting for dhcp6; nic 4 (52:54:00:12:34:58): waiting for dhcp4"
	for range 3 {
		if got := Evaluate(in, Strict).Message; got != want {
			t.Fatalf("Message = %q, want %q", got, want)
		}
	}
}

func TestStringers(t *testing.T) {
	tests := []struct{ got, want string }{
		{Strict.String(), "Strict"},
		{Counting.String(), "Counting"},
		{Policy(9).String(), "Policy(9)"},
		{Pending.String(), "Pending"},
		{Mismatch.String(), "Mismatch"},
		{State(-1).String(), "State(-1)"},
		{MatchPosition.String(), "Position"},
		{Match(7).String(), "Match(7)"},
		{Node.String(), "Node"},
		{Hypervisor.String(), "Hypervisor"},
		{Source(3).String(), "Source(3)"},
		{IgnoredAmbiguous.String(), "ambiguous: several devices wait for this family"},
		{IgnoreReason(99).String(), "IgnoreReason(99)"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("String() = %q, want %q", tt.got, tt.want)
		}
	}
}

// An unknown Policy is evaluated as Strict.
func TestUnknownPolicyIsStrict(t *testing.T) {
	in := Input{Devices: []Device{{DHCP4: true}}, NICs: []NIC{{Addrs: netiptest.Addrs("169.254.1.1")}}}
	checkVerdict(t, in, Policy(42), render(Evaluate(in, Strict)))
}
