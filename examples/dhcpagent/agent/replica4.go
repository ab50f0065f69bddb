package agent

import "net/netip"

// WithServerID4 sets the DHCPv4 server identifier the agent answers as,
// in place of the pool's serverIP: the address of this replica on the
// served segment, when two agents serve one pool (two hosts cannot share
// one address, and a client unicasts its renewals to the identifier it
// was given). An invalid or non-IPv4 addr leaves the pool's.
func WithServerID4(addr netip.Addr) Option {
	return func(a *Agent) {
		if addr.Is4() {
			a.serverID4 = addr
		}
	}
}

// WithPeers4 lists the server identifiers of the other agents serving the
// same pool (each prefix holds identifiers; a /32 for one). Every agent
// builds the same table from the pool, so no lease is synchronised; what
// the peers change is only which messages name this agent: a DECLINE or
// RELEASE naming a peer is checked as one naming this agent, and a
// REQUEST selecting a peer's offer is not answered (the peer ACKs it) but
// noted as a binding, so that a DECLINE after it is accepted here too
// within the decline window, and a DECLINE with no binding before it is
// refused by every agent alike. Each prefix is masked; an IPv6 one
// matches nothing.
func WithPeers4(peers []netip.Prefix) Option {
	return func(a *Agent) {
		a.peers4 = make([]netip.Prefix, 0, len(peers))
		for _, p := range peers {
			a.peers4 = append(a.peers4, p.Masked())
		}
	}
}
