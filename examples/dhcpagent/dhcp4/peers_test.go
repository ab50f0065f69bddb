package dhcp4

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// TestPeers checks what a peer changes in the decision: a REQUEST
// selecting a listed peer's offer is not answered but reported as a
// binding of the client's own address; a DECLINE or RELEASE naming a
// peer is checked as one naming this server; an unlisted server stays
// another server.
func TestPeers(t *testing.T) {
	peer := netip.MustParseAddr("10.77.0.3")
	stranger := netip.MustParseAddr("10.77.0.9")
	table := TableOf(storeOf(t, labtest.Pool(dhcp4test.LabAllocated())))
	table.Peers = []netip.Prefix{netip.MustParsePrefix("10.77.0.3/32")}
	selecting := func(sid, addr netip.Addr) *dhcpv4.DHCPv4 {
		return dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeRequest,
			dhcpv4.WithOption(dhcpv4.OptServerIdentifier(dhcp4test.NetIP(sid))),
			dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(dhcp4test.NetIP(addr))))
	}
	named := func(sid netip.Addr) dhcpv4.Modifier {
		return dhcpv4.WithOption(dhcpv4.OptServerIdentifier(dhcp4test.NetIP(sid)))
	}
	tests := []struct {
		name    string
		req     *dhcpv4.DHCPv4
		check   func(*dhcpv4.DHCPv4, Table) (netip.Addr, error)
		wantErr error
		want    netip.Addr
		wantAck Ack
	}{
		{name: "REQUEST selecting a peer's offer of its own address", req: selecting(peer, dhcp4test.AddrA),
			wantErr: ErrPeerSelected, wantAck: Ack{Addr: dhcp4test.AddrA, MAC: leasestore.MustParseMAC(dhcp4test.MACA), Binding: true, Peer: true}},
		{name: "REQUEST selecting a peer's offer of another address", req: selecting(peer, dhcp4test.AddrB), wantErr: ErrPeerSelected},
		{name: "REQUEST selecting a stranger's offer", req: selecting(stranger, dhcp4test.AddrA), wantErr: ErrOtherServer},
		{name: "DECLINE naming a peer", req: dhcp4test.Decline(t, dhcp4test.MACA, dhcp4test.AddrA, named(peer)), check: declinedAddr, want: dhcp4test.AddrA},
		{name: "DECLINE naming a stranger", req: dhcp4test.Decline(t, dhcp4test.MACA, dhcp4test.AddrA, named(stranger)), check: declinedAddr, wantErr: ErrOtherServer},
		{name: "DECLINE naming a peer, of another MAC's address", req: dhcp4test.Decline(t, dhcp4test.MACA, dhcp4test.AddrB, named(peer)), check: declinedAddr, wantErr: ErrNotLeased},
		{name: "RELEASE naming a peer", check: releasedAddr, want: dhcp4test.AddrA,
			req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeRelease, named(peer), dhcpv4.WithClientIP(dhcp4test.NetIP(dhcp4test.AddrA)))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.check != nil {
				got, err := tt.check(tt.req, table)
				if !errors.Is(err, tt.wantErr) || got != tt.want {
					t.Errorf("got %v, %v; want %v, %v", got, err, tt.want, tt.wantErr)
				}
				return
			}
			var ack Ack
			resp, _, err := Decide(nil, tt.req, table, &ack)
			if resp != nil || !errors.Is(err, tt.wantErr) {
				t.Errorf("Decide = %v, %v; want no reply, %v", resp, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantAck, ack, cmp.Comparer(func(a, b netip.Addr) bool { return a == b }),
				cmp.Comparer(func(a, b leasestore.MAC) bool { return a == b })); diff != "" {
				t.Errorf("ack (-want +got):\n%s", diff)
			}
		})
	}
}
