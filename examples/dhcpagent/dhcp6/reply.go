package dhcp6

import (
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// Reply is a reply [Decide] built, in memory it reuses: decide into one
// Reply per goroutine and a steady stream of answers allocates nothing
// once its slices have grown. The zero Reply is ready to use.
//
// Packet is the reply: its RELAY-REPL headers (when the request was
// relayed) and its message. Its byte slices alias the request's (the
// client's DUID, the relays' interface-ids) and the Table's (the server's
// DUID, the pool's name servers): encode it (Append) before the request's
// buffer is reused.
type Reply struct {
	Packet dhcp6wire.Packet

	ias       []dhcp6wire.IANA
	addrs     []dhcp6wire.IAAddr
	domains   []byte              // the wire form of domainsOf's search list
	domainsOf *leasestore.Options // the options domains was made from
}

// Append appends the reply's datagram to b (dhcp6wire.Append).
func (r *Reply) Append(b []byte) []byte { return dhcp6wire.Append(b, &r.Packet) }

// reset starts a reply of type typ to the request m, wrapped in a
// RELAY-REPL for each RELAY-FORW of req (RFC 8415 section 19.3: the
// hop count, link and peer addresses copied, the interface-id echoed).
func (r *Reply) reset(req *dhcp6wire.Packet, typ dhcp6wire.MessageType, serverID []byte) *dhcp6wire.Message {
	p := &r.Packet
	p.Relays = p.Relays[:0]
	for i := range req.Relays {
		in := &req.Relays[i]
		p.Relays = append(p.Relays, dhcp6wire.Relay{
			Type: dhcp6wire.RelayRepl, HopCount: in.HopCount, LinkAddr: in.LinkAddr, PeerAddr: in.PeerAddr,
			InterfaceID: in.InterfaceID,
		})
	}
	p.Msg = dhcp6wire.Message{
		Type:          typ,
		TransactionID: req.Msg.TransactionID,
		ClientID:      req.Msg.ClientID,
		ServerID:      serverID,
		IANA:          r.ias[:0],
		// DNS and DomainList are assigned, never appended to: DNS is
		// the Table's own slice, which a reused Reply must not write.
	}
	r.addrs = r.addrs[:0]
	return &p.Msg
}

// addIA appends ia, with the addresses addrs, to the reply, keeping r.ias
// and r.addrs as the room of the reply's IAs and addresses.
func (r *Reply) addIA(ia dhcp6wire.IANA, addrs ...dhcp6wire.IAAddr) {
	if len(addrs) > 0 {
		first := len(r.addrs)
		r.addrs = append(r.addrs, addrs...)
		ia.Addrs = r.addrs[first:len(r.addrs):len(r.addrs)]
	}
	r.Packet.Msg.IANA = append(r.Packet.Msg.IANA, ia)
	r.ias = r.Packet.Msg.IANA
}

// addOptions adds the options of o that the request m asks for in its
// ORO: the DNS servers (23) and the domain search list (24), when set.
func (r *Reply) addOptions(m *dhcp6wire.Message, o *leasestore.Options) {
	if o == nil {
		return
	}
	out := &r.Packet.Msg
	if len(o.DNS) > 0 && m.Requests(dhcp6wire.OptionDNSServers) {
		out.DNS = o.DNS
	}
	if len(o.DomainSearch) > 0 && m.Requests(dhcp6wire.OptionDomainList) {
		if r.domainsOf != o {
			// The Store validated every name, so this does not fail;
			// if it did, the list would be left out.
			b, err := dhcp6wire.AppendDomainList(r.domains[:0], o.DomainSearch)
			if err != nil {
				b = b[:0]
			}
			r.domains, r.domainsOf = b, o
		}
		out.DomainList = r.domains
	}
}
