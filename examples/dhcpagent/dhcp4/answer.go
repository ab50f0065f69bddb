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
	s = s.orNew()
	mandatory, optional, size := t.Cache.encoded(lease)
	resp := s.start(req, 1+size+echoesLen(req))
	resp.YourIPAddr = s.addr(yiaddr, lease.Addr)
	if typ == dhcpv4.MessageTypeAck {
		// Table 3: an ACK echoes ciaddr; an OFFER and a NAK carry zero.
		resp.ClientIPAddr = s.ip4OrZero(ciaddr, req.ClientIPAddr)
	}
	var room [14]part // every option a reply may carry, so that parts need not be allocated
	parts := room[:0]
	parts = append(parts, s.messageType(typ))
	parts = s.own(parts, mandatory...)
	parts = echoes(s, parts, req)
	parts = s.own(parts, optional...)
	return resp, fit(resp, parts, ReplyLimit(req))
}

// inform is the ACK to an INFORM from mac: the pool's options for a client
// that configured its address itself (RFC 2131 section 4.3.5).
func inform(s *Scratch, req *dhcpv4.DHCPv4, t Table, mac leasestore.MAC) (*dhcpv4.DHCPv4, Trim, error) {
	ci := ipv4(req.ClientIPAddr)
	if !ci.IsValid() || ci.IsUnspecified() || !t.Prefix.Contains(ci) {
		return nil, Trim{}, fmt.Errorf("%w: INFORM from %s with ciaddr %s, outside %s", ErrNotServed, mac, ci, t.Prefix)
	}
	mandatory, optional, size := t.Cache.encoded(leasestore.Lease{MAC: mac, Addr: ci, Prefix: t.Prefix, Options: t.Options})
	s = s.orNew()
	resp := s.start(req, 1+size+echoesLen(req))
	// Table 3: the ACK to an INFORM echoes ciaddr, and yiaddr stays zero.
	resp.ClientIPAddr = s.ip4OrZero(ciaddr, req.ClientIPAddr)
	var room [14]part
	parts := room[:0]
	parts = append(parts, s.messageType(dhcpv4.MessageTypeAck))
	for _, p := range mandatory {
		switch p.code {
		case dhcpv4.OptionIPAddressLeaseTime.Code(), dhcpv4.OptionRenewTimeValue.Code(), dhcpv4.OptionRebindingTimeValue.Code():
			// RFC 2131 section 4.3.5: the server MUST NOT send a lease time.
		default:
			parts = s.own(parts, p)
		}
	}
	parts = echoes(s, parts, req)
	parts = s.own(parts, optional...)
	return resp, fit(resp, parts, ReplyLimit(req)), nil
}

// nak refuses a REQUEST with the message text. It carries only the server
// identifier and the message (RFC 2131, table 3), and asks a relay to
// broadcast it (section 4.1).
func nak(s *Scratch, req *dhcpv4.DHCPv4, server netip.Addr, text []byte) (*dhcpv4.DHCPv4, Trim) {
	s = s.orNew()
	resp := s.start(req, 1+4+echoesLen(req)+len(text))
	if !resp.GatewayIPAddr.IsUnspecified() {
		resp.SetBroadcast()
	}
	sid4 := server.As4()
	sid := whole(dhcpv4.OptionServerIdentifier.Code(), s.take(sid4[:]))
	sid.mandatory = true
	var room [5]part
	parts := append(room[:0], s.messageType(dhcpv4.MessageTypeNak), sid)
	parts = echoes(s, parts, req)
	parts = append(parts, whole(dhcpv4.OptionMessage.Code(), s.take(text)))
	return resp, fit(resp, parts, ReplyLimit(req))
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

// messageType is the message type option of a reply, its byte in s.
func (s *Scratch) messageType(typ dhcpv4.MessageType) part {
	p := whole(dhcpv4.OptionDHCPMessageType.Code(), s.take([]byte{byte(typ)}))
	p.mandatory = true
	return p
}

// echoCodes are the options of a request a reply copies back whole, in
// the order a reply keeps them: relay agent information (RFC 3046), then
// the client identifier (RFC 6842).
var echoCodes = [...]uint8{dhcp4wire.OptionRelayInfo, dhcpv4.OptionClientIdentifier.Code()}

// echoes appends to parts the options of req a reply copies back (see
// echoCodes), their values copied to s.
func echoes(s *Scratch, parts []part, req *dhcpv4.DHCPv4) []part {
	for _, code := range echoCodes {
		if v := req.Options[code]; v != nil {
			parts = append(parts, whole(code, s.take(v)))
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
