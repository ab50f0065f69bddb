package dhcp6

import (
	"errors"
	"net/netip"
)

// Why a message is refused for where it came from (see Decide).
var (
	// ErrReplySource: the datagram's source is not an address a reply
	// may go to: multicast (a SOLICIT "from" ff02::1 would have its
	// ADVERTISE sent to every node of the link), unspecified, loopback
	// or IPv4-mapped. A client sends from its link-local address, a
	// relay from a unicast one.
	ErrReplySource = errors.New("dhcp6: source is not a unicast link-local or global address")
	// ErrUntrustedRelay: a RELAY-FORW from an address Table.Relays does
	// not list. A relay's options choose the client's lease (RFC 6939's
	// client link-layer address, the peer address's EUI-64), so only a
	// relay the operator named is believed; any other host could name
	// any MAC that way.
	ErrUntrustedRelay = errors.New("dhcp6: relayed message from a relay that is not listed")
)

// Replyable reports whether a reply may be sent to a: a unicast
// link-local or global (unique local included) IPv6 address. It does not
// allocate.
func Replyable(a netip.Addr) bool {
	return a.Is6() && !a.Is4In6() && (a.IsLinkLocalUnicast() || a.IsGlobalUnicast())
}

// trusts reports whether relay is inside one of t.Relays.
func (t *Table) trusts(relay netip.Addr) bool {
	relay = relay.WithZone("")
	for _, p := range t.Relays {
		if p.Contains(relay) {
			return true
		}
	}
	return false
}

// checkArrival refuses a message by where it came from: a source no
// reply may go to, or a relayed message from a relay t does not list.
func checkArrival(relayed bool, a Arrival, t *Table) error {
	if !Replyable(a.Source) {
		return ErrReplySource
	}
	if relayed && !t.trusts(a.Source) {
		return ErrUntrustedRelay
	}
	return nil
}
