package metrics

import "sync/atomic"

// Counters are a server's running totals, each updated without a lock by
// every handler. The zero Counters is ready; do not copy one after use.
type Counters struct {
	Received   atomic.Uint64 // client messages handled
	Offers     atomic.Uint64 // offers sent (DHCPv4 OFFER)
	Acks       atomic.Uint64 // confirmations sent (DHCPv4 ACK, those to an INFORM included)
	Naks       atomic.Uint64 // refusals sent (DHCPv4 NAK)
	Declines   atomic.Uint64 // declines accepted: an address went on probation
	Lifts      atomic.Uint64 // probations lifted: the client asked to keep the address declined in its name
	Releases   atomic.Uint64 // releases accepted
	Drops      atomic.Uint64 // messages that got no reply, and declines and releases not accepted
	SendErrors atomic.Uint64 // replies the socket refused
	Loads      atomic.Uint64 // tables swapped in

	// SendDropped: replies dropped rather than waited for (the send
	// buffer was full, or too full for a destination not known to be
	// reachable).
	SendDropped atomic.Uint64
	// Oversized: replies refused for being larger than their request
	// allows (DHCPv6: dhcp6.ReplyLimit).
	Oversized atomic.Uint64
	// UntrustedRelays: relayed messages dropped because their relay is
	// not listed (DHCPv6).
	UntrustedRelays atomic.Uint64
}

// Stats are a server's totals since it started, and the table it serves.
type Stats struct {
	Received   uint64 // client messages handled
	Offers     uint64 // OFFERs sent
	Acks       uint64 // ACKs sent, those to an INFORM included
	Naks       uint64 // NAKs sent
	Declines   uint64 // DECLINEs accepted: an address went on probation
	Lifts      uint64 // probations lifted: the client asked to keep the address declined in its name
	Releases   uint64 // RELEASEs accepted
	Drops      uint64 // messages that got no reply, and DECLINEs and RELEASEs that were not accepted
	SendErrors uint64 // replies the socket refused

	SendDropped     uint64 // replies dropped rather than waited for (see Counters)
	Oversized       uint64 // replies refused for their size
	UntrustedRelays uint64 // relayed messages from a relay not listed
	BadChecksums    uint64 // datagrams the packet socket skipped for a bad UDP checksum

	Loads           uint64 // tables swapped in
	Pool            string // the pool being served, namespace/name
	ResourceVersion string // the resourceVersion of the pool being served
	Leases          int    // leases in the table being served
	OnProbation     int    // addresses on probation now
}

// Read is the Stats of c's totals, each read atomically (not all at one
// instant); the caller fills in the table's fields.
func (c *Counters) Read() Stats {
	return Stats{
		Received: c.Received.Load(), Offers: c.Offers.Load(), Acks: c.Acks.Load(), Naks: c.Naks.Load(),
		Declines: c.Declines.Load(), Lifts: c.Lifts.Load(), Releases: c.Releases.Load(), Drops: c.Drops.Load(),
		SendErrors: c.SendErrors.Load(), Loads: c.Loads.Load(),
		SendDropped: c.SendDropped.Load(), Oversized: c.Oversized.Load(), UntrustedRelays: c.UntrustedRelays.Load(),
	}
}
