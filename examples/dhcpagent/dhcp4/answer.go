package dhcp4

import (
	"fmt"
	"net"
	"net/netip"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4wire"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// grant is the OFFER or ACK of lease, fitted to the client's limit, built
// in s.
func grant(s *Scratch, req *dhcpv4.DHCPv4, t Table, lease leasestore.Lease, typ dhcpv4.MessageType) (*dhcpv4.DHCPv4, Trim) {
	s = orNew(s)
	mandatory, optional, size := t.Cache.Parts(lease)
	resp := s.Start(req, 1+size+echoesLen(req))
	resp.YourIPAddr = s.YourAddr(lease.Addr)
	if typ == dhcpv4.MessageTypeAck {
		// Table 3: an ACK echoes ciaddr; an OFFER and a NAK carry zero.
		resp.ClientIPAddr = s.ClientAddr(req.ClientIPAddr)
	}
	var room [14]dhcp4wire.Part // every option a reply may carry, so that parts need not be allocated
	parts := room[:0]
	parts = append(parts, messageType(s, typ))
	parts = s.Own(parts, mandatory...)
	parts = echoes(s, parts, req)
	parts = s.Own(parts, optional...)
	return resp, dhcp4wire.Fit(resp, parts, dhcp4wire.ReplyLimit(req))
}

// inform is the ACK to an INFORM from mac: the pool's options for a client
// that configured its address itself (RFC 2131 section 4.3.5).
func inform(s *Scratch, req *dhcpv4.DHCPv4, t Table, mac leasestore.MAC) (*dhcpv4.DHCPv4, Trim, error) {
	ci := ipv4(req.ClientIPAddr)
	if !ci.IsValid() || ci.IsUnspecified() || !t.Prefix.Contains(ci) {
		return nil, Trim{}, fmt.Errorf("%w: INFORM from %s with ciaddr %s, outside %s", ErrNotServed, mac, ci, t.Prefix)
	}
	mandatory, optional, size := t.Cache.Parts(leasestore.Lease{MAC: mac, Addr: ci, Prefix: t.Prefix, Options: t.Options})
	s = orNew(s)
	resp := s.Start(req, 1+size+echoesLen(req))
	// Table 3: the ACK to an INFORM echoes ciaddr, and yiaddr stays zero.
	resp.ClientIPAddr = s.ClientAddr(req.ClientIPAddr)
	var room [14]dhcp4wire.Part
	parts := room[:0]
	parts = append(parts, messageType(s, dhcpv4.MessageTypeAck))
	for _, p := range mandatory {
		switch p.Code {
		case dhcpv4.OptionIPAddressLeaseTime.Code(), dhcpv4.OptionRenewTimeValue.Code(), dhcpv4.OptionRebindingTimeValue.Code():
			// RFC 2131 section 4.3.5: the server MUST NOT send a lease time.
		default:
			parts = s.Own(parts, p)
		}
	}
	parts = echoes(s, parts, req)
	parts = s.Own(parts, optional...)
	return resp, dhcp4wire.Fit(resp, parts, dhcp4wire.ReplyLimit(req)), nil
}

// nak refuses a REQUEST with the message text. It carries only the server
// identifier and the message (RFC 2131, table 3), and asks a relay to
// broadcast it (section 4.1).
func nak(s *Scratch, req *dhcpv4.DHCPv4, server netip.Addr, text []byte) (*dhcpv4.DHCPv4, Trim) {
	s = orNew(s)
	resp := s.Start(req, 1+4+echoesLen(req)+len(text))
	if !resp.GatewayIPAddr.IsUnspecified() {
		resp.SetBroadcast()
	}
	sid4 := server.As4()
	sid := dhcp4wire.Whole(dhcpv4.OptionServerIdentifier.Code(), s.Take(sid4[:]))
	sid.Mandatory = true
	var room [5]dhcp4wire.Part
	parts := append(room[:0], messageType(s, dhcpv4.MessageTypeNak), sid)
	parts = echoes(s, parts, req)
	parts = append(parts, dhcp4wire.Whole(dhcpv4.OptionMessage.Code(), s.Take(text)))
	return resp, dhcp4wire.Fit(resp, parts, dhcp4wire.ReplyLimit(req))
}

// notLeased appends the text of the NAK of a REQUEST for asked, which the
// table does not lease to the client mac: "10.0.0.7 is not leased to
// 52:54:00:aa:bb:cc".
func notLeased(b []byte, asked netip.Addr, mac leasestore.MAC) []byte {
	b = asked.AppendTo(b)
	b = append(b, " is not leased to "...)
	b, _ = mac.AppendText(b)
	return b
}

// onProbation appends the text of the NAK of a REQUEST for asked, which
// is on probation: "10.0.0.7 was declined and is on probation".
func onProbation(b []byte, asked netip.Addr) []byte {
	return append(asked.AppendTo(b), " was declined and is on probation"...)
}

// orNew is s, or a new Scratch when s is nil, so that an answer that
// turns out to be silence allocates none.
func orNew(s *Scratch) *Scratch {
	if s == nil {
		return new(Scratch)
	}
	return s
}

// messageType is the message type option of a reply, its byte in s.
func messageType(s *Scratch, typ dhcpv4.MessageType) dhcp4wire.Part {
	p := dhcp4wire.Whole(dhcpv4.OptionDHCPMessageType.Code(), s.Take([]byte{byte(typ)}))
	p.Mandatory = true
	return p
}

// echoCodes are the options of a request a reply copies back whole, in
// the order a reply keeps them: relay agent information (RFC 3046), then
// the client identifier (RFC 6842).
var echoCodes = [...]uint8{dhcp4wire.OptionRelayInfo, dhcpv4.OptionClientIdentifier.Code()}

// echoes appends to parts the options of req a reply copies back (see
// echoCodes), their values copied to s.
func echoes(s *Scratch, parts []dhcp4wire.Part, req *dhcpv4.DHCPv4) []dhcp4wire.Part {
	for _, code := range echoCodes {
		if v := req.Options[code]; v != nil {
			parts = append(parts, dhcp4wire.Whole(code, s.Take(v)))
		}
	}
	return parts
}

// echoesLen is the bytes of the options echoes copies.
func echoesLen(req *dhcpv4.DHCPv4) int {
	n := 0
	for _, code := range echoCodes {
		n += len(req.Options[code])
	}
	return n
}

// ipv4 converts a 4- or 16-byte net.IP holding an IPv4 address; anything
// else is the zero Addr.
func ipv4(ip net.IP) netip.Addr {
	ip4 := ip.To4()
	if ip4 == nil {
		return netip.Addr{}
	}
	return netip.AddrFrom4([4]byte(ip4))
}

// isZero4 reports whether ip is absent or 0.0.0.0.
func isZero4(ip net.IP) bool {
	a := ipv4(ip)
	return !a.IsValid() || a.IsUnspecified()
}

var limitedBroadcast = netip.AddrFrom4([4]byte{255, 255, 255, 255})
