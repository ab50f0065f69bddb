package agent

import (
	"net/netip"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// discardWriter is a replyWriter that counts what it is given.
type discardWriter struct{ n int }

func (w *discardWriter) WriteToUDPAddrPort(b []byte, _ netip.AddrPort) (int, error) {
	w.n++
	return len(b), nil
}

// WriteTo makes it a FrameWriter, as the packet socket is.
func (w *discardWriter) WriteTo(b []byte, _ netip.AddrPort, _ [6]byte) (int, error) {
	w.n++
	return len(b), nil
}

// TestHandle6Allocs: answering a SOLICIT and a REQUEST read from the
// packet socket, from decode to the datagram handed to the socket,
// allocates nothing (logging per packet off, as in production).
func TestHandle6Allocs(t *testing.T) {
	const mac = "52:54:00:aa:00:01"
	a := New(nil, WithLogger(logr.Discard()), WithServerDUID([]byte{0, 3, 0, 1, 2, 0, 0, 0, 0, 0x53}))
	if _, err := a.Apply(lab6Pool(map[string]string{"2001:db8:30::a": mac})); err != nil {
		t.Fatal(err)
	}
	duid := dhcp6wire.AppendDUIDLLT(nil, 1, leasestore.MustParseMAC(mac).As6())
	solicit := dhcp6wire.AppendMessage(nil, &dhcp6wire.Message{Type: dhcp6wire.Solicit, TransactionID: [3]byte{1, 2, 3},
		ClientID: duid, IANA: []dhcp6wire.IANA{{IAID: 1}}, HasElapsedTime: true,
		ORO: []dhcp6wire.OptionCode{dhcp6wire.OptionDNSServers, dhcp6wire.OptionDomainList}})
	request := dhcp6wire.AppendMessage(nil, &dhcp6wire.Message{Type: dhcp6wire.Request, TransactionID: [3]byte{1, 2, 4},
		ClientID: duid, ServerID: a.ServerDUID(), HasElapsedTime: true,
		IANA: []dhcp6wire.IANA{{IAID: 1, Addrs: []dhcp6wire.IAAddr{{Addr: netip.MustParseAddr("2001:db8:30::a")}}}},
		ORO:  []dhcp6wire.OptionCode{dhcp6wire.OptionDNSServers, dhcp6wire.OptionDomainList}})
	peer := netip.MustParseAddrPort("[fe80::5054:ff:feaa:1]:546")
	arr := dhcp6.Arrival{Source: peer.Addr(), FrameMAC: leasestore.MustParseMAC(mac), HasFrame: true}
	s, w := newScratch6(), &discardWriter{}
	for name, msg := range map[string][]byte{"SOLICIT": solicit, "REQUEST": request} {
		t.Run(name, func(t *testing.T) {
			before := w.n
			allocs := testing.AllocsPerRun(100, func() { a.handle6(s, out6{frames: w, mac: arr.FrameMAC.As6()}, msg, arr, peer, "eth0") })
			if w.n-before != 101 {
				t.Fatalf("%d replies to 101 %ss", w.n-before, name)
			}
			if allocs != 0 {
				t.Errorf("%s: %.1f allocations per message, want 0", name, allocs)
			}
		})
	}
	if got := a.Stats6(time.Now()); got.Offers != 101 || got.Acks != 101 || got.Drops != 0 {
		t.Errorf("counted %d ADVERTISE, %d REPLY, %d drops; want 101, 101, 0", got.Offers, got.Acks, got.Drops)
	}
}
