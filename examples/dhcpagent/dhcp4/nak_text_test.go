package dhcp4

import (
	"fmt"
	"net"
	"net/netip"
	"testing"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/leasestore"
	"pgregory.net/rapid"
)

// TestNAKTextMatchesSprintf: the NAK messages appended without fmt read
// as the fmt.Sprintf of the address and the leasestore.MAC they replaced.
func TestNAKTextMatchesSprintf(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		asked := netip.AddrFrom4([4]byte(rapid.SliceOfN(rapid.Byte(), 4, 4).Draw(t, "asked")))
		hw := net.HardwareAddr(rapid.SliceOfN(rapid.Byte(), 6, 6).Draw(t, "hw"))
		mac, err := leasestore.MACFrom(hw)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(notLeased(nil, asked, mac)), fmt.Sprintf("%s is not leased to %s", asked, mac); got != want {
			t.Fatalf("notLeased %q, want %q", got, want)
		}
		if got, want := string(onProbation(nil, asked)), fmt.Sprintf("%s was declined and is on probation", asked); got != want {
			t.Fatalf("onProbation %q, want %q", got, want)
		}
	})
}

// FuzzOptionReaders: the agent's own readers of the message type, the
// maximum message size and address options read what the dhcp library's
// do, whose errors and copies they avoid.
func FuzzOptionReaders(f *testing.F) {
	f.Add(dhcp4test.Discover(f, dhcp4test.MACA).ToBytes())
	f.Add(dhcp4test.Selecting(f, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrA).ToBytes())
	sized := dhcp4test.Discover(f, dhcp4test.MACB)
	sized.Options[dhcpv4.OptionMaximumDHCPMessageSize.Code()] = []byte{5, 220}
	sized.Options[dhcpv4.OptionServerIdentifier.Code()] = []byte{10, 77, 0}
	f.Add(sized.ToBytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := dhcpv4.FromBytes(data)
		if err != nil {
			return
		}
		if got, want := MessageTypeOf(m), m.MessageType(); got != want {
			t.Errorf("messageTypeOf %v, MessageType %v", got, want)
		}
		want := dhcp4wire.MinMessageSize
		if v, err := m.MaxMessageSize(); err == nil && int(v) > want {
			want = int(v)
		}
		if got := dhcp4wire.ReplyLimit(m); got != want-udpIPv4Overhead {
			t.Errorf("ReplyLimit %d, want %d", got, want-udpIPv4Overhead)
		}
		for _, code := range []dhcpv4.OptionCode{dhcpv4.OptionServerIdentifier, dhcpv4.OptionRequestedIPAddress} {
			if got, want := optionAddr(m, code), ipv4(dhcpv4.GetIP(code, m.Options)); got != want {
				t.Errorf("optionAddr(%v) %v, GetIP %v", code, got, want)
			}
		}
	})
}
