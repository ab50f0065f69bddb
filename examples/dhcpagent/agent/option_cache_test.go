package agent

import (
	"net"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
)

// TestOptionCacheSameBytes: replies from the Agent's table, whose options
// are encoded once per table, are byte for byte the replies dhcp4.ReplyTo makes
// from dhcp4.TableOf, which encodes them per reply, for each kind of reply that
// carries options, the trimmed one included.
func TestOptionCacheSameBytes(t *testing.T) {
	a := newAgent(t, labtest.Pool(dhcp4test.LabAllocated()), quietLogger())
	tests := []struct {
		name string
		req  *dhcpv4.DHCPv4
	}{
		{"OFFER", dhcp4test.Discover(t, dhcp4test.MACA)},
		{"ACK", dhcp4test.Selecting(t, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrA)},
		{"INFORM's ACK", dhcp4test.Message(t, dhcp4test.MACB, dhcpv4.MessageTypeInform, dhcpv4.WithClientIP(dhcp4test.NetIP(dhcp4test.AddrB)))},
		{"OFFER cut to a 300-byte limit", dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover,
			dhcpv4.WithOption(dhcpv4.OptMaxMessageSize(300)))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 2 { // a miss, then a hit
				got, _, err := dhcp4.ReplyTo(tt.req, a.TableAt(a.now()))
				if err != nil {
					t.Fatal(err)
				}
				want, _, err := dhcp4.ReplyTo(tt.req, dhcp4.TableOf(a.Table()))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want.ToBytes(), got.ToBytes()); diff != "" {
					t.Errorf("reply (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestOptionCacheRepliesOwnTheirOptions: a caller that changes the options
// of one reply in place changes nothing in the next.
func TestOptionCacheRepliesOwnTheirOptions(t *testing.T) {
	a := newAgent(t, labtest.Pool(dhcp4test.LabAllocated()), quietLogger())
	first, err := a.Respond(dhcp4test.Discover(t, dhcp4test.MACA))
	if err != nil {
		t.Fatal(err)
	}
	want := first.ToBytes()
	for _, v := range first.Options {
		for i := range v {
			v[i] = 0xff
		}
	}
	first.Options[dhcpv4.OptionRouter.Code()] = net.IPv4(1, 2, 3, 4).To4()
	second, err := a.Respond(dhcp4test.Discover(t, dhcp4test.MACA))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, second.ToBytes()); diff != "" {
		t.Errorf("second reply after the first's options were overwritten (-want +got):\n%s", diff)
	}
}
