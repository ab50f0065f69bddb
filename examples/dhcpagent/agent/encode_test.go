package agent

import (
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"

	"net"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
)

// TestAppendMessage: dhcp4wire.Append writes what the dhcp library's ToBytes
// writes, for the agent's replies and the edge cases of the format.
func TestAppendMessage(t *testing.T) {
	a := newAgent(t, labtest.Pool(dhcp4test.LabAllocated()), quietLogger())
	offer, err := a.Respond(dhcp4test.Discover(t, dhcp4test.MACA))
	if err != nil {
		t.Fatal(err)
	}
	nak, err := a.Respond(dhcp4test.Selecting(t, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrB))
	if err != nil {
		t.Fatal(err)
	}
	inform, err := a.Respond(dhcp4test.Message(t, dhcp4test.MACB, dhcpv4.MessageTypeInform, dhcpv4.WithClientIP(dhcp4test.NetIP(dhcp4test.AddrB))))
	if err != nil {
		t.Fatal(err)
	}
	long := dhcp4test.Discover(t, dhcp4test.MACB)
	long.Options[dhcpv4.OptionDNSDomainSearchList.Code()] = make([]byte, 600) // three instances
	long.Options[dhcp4wire.OptionRelayInfo] = []byte{1, 2, 0, 0}              // last
	long.Options[dhcpv4.OptionHostName.Code()] = nil                          // empty, still written
	long.Options[0] = []byte{1}                                               // pad and end: left out
	long.Options[255] = []byte{1}
	long.ServerHostName, long.BootFileName = strings.Repeat("s", 80), strings.Repeat("f", 200) // cut to 63 and 127 (overload fields)
	long.GatewayIPAddr = net.IPv4(10, 0, 0, 1)                                                 // 16-byte form
	long.ClientIPAddr = nil
	long.ClientHWAddr = make(net.HardwareAddr, 20) // longer than the field
	tests := []struct {
		name string
		m    *dhcpv4.DHCPv4
	}{
		{"OFFER", offer},
		{"NAK", nak},
		{"INFORM's ACK", inform},
		{"long options, fields and addresses", long},
		{"no options", &dhcpv4.DHCPv4{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.m.ToBytes(), dhcp4wire.Append(nil, tt.m)); diff != "" {
				t.Errorf("dhcp4wire.Append (-ToBytes +got):\n%s", diff)
			}
			prefix := []byte("kept")
			if got := dhcp4wire.Append(prefix, tt.m); string(got[:4]) != "kept" || string(got[4:]) != string(tt.m.ToBytes()) {
				t.Errorf("dhcp4wire.Append after a prefix: prefix or message changed")
			}
		})
	}
}

// FuzzAppendMessage: for every message the dhcp library parses,
// dhcp4wire.Append writes the bytes its ToBytes writes.
func FuzzAppendMessage(f *testing.F) {
	f.Add(dhcp4test.Discover(f, dhcp4test.MACA).ToBytes())
	f.Add(dhcp4test.Selecting(f, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrA).ToBytes())
	long := dhcp4test.Discover(f, dhcp4test.MACB)
	long.Options[dhcpv4.OptionDNSDomainSearchList.Code()] = make([]byte, 300)
	long.Options[dhcp4wire.OptionRelayInfo] = []byte{1, 2, 0, 0}
	f.Add(long.ToBytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := dhcpv4.FromBytes(data)
		if err != nil {
			return
		}
		if diff := cmp.Diff(m.ToBytes(), dhcp4wire.Append(nil, m)); diff != "" {
			t.Errorf("dhcp4wire.Append (-ToBytes +got):\n%s", diff)
		}
	})
}
