package agent

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
)

// counters are the agent's running totals, updated without a lock by
// every handler.
type counters struct {
	received, offers, acks, naks, drops, sendErrors atomic.Uint64
	declines, releases, loads, lifts                atomic.Uint64
}

func (c *counters) reply(typ dhcpv4.MessageType) {
	switch typ {
	case dhcpv4.MessageTypeOffer:
		c.offers.Add(1)
	case dhcpv4.MessageTypeAck:
		c.acks.Add(1)
	case dhcpv4.MessageTypeNak:
		c.naks.Add(1)
	}
}

// Stats are an Agent's totals since it was made, and the table it serves.
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

	Loads           uint64 // tables swapped in
	Pool            string // the pool being served, namespace/name
	ResourceVersion string // the resourceVersion of the pool being served
	Leases          int    // leases in the table being served
	OnProbation     int    // addresses on probation now
}

// Stats reads the agent's totals (each atomically, not all at one
// instant) and the table being served, with the probation at now.
func (a *Agent) Stats(now time.Time) Stats {
	c := &a.counters
	s := Stats{
		Received: c.received.Load(), Offers: c.offers.Load(), Acks: c.acks.Load(), Naks: c.naks.Load(),
		Declines: c.declines.Load(), Lifts: c.lifts.Load(), Releases: c.releases.Load(), Drops: c.drops.Load(),
		SendErrors: c.sendErrors.Load(), Loads: c.loads.Load(), OnProbation: a.probation.Len(now),
	}
	if v := a.table.Load(); v != nil {
		s.Pool, s.ResourceVersion, s.Leases = v.pool, v.resourceVersion, v.table.Len()
	}
	return s
}

// Summarize logs a summary line at level 0 every interval until ctx is
// done, and returns ctx.Err(): the counts since the last line (received,
// offers, acks, naks, declines, probations lifted, releases, drops, send
// errors) and the
// table being served (pool, resourceVersion, leases, loads, addresses on
// probation). It is how an operator sees the traffic without a line per
// packet.
func (a *Agent) Summarize(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	last := a.Stats(a.now())
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			s := a.Stats(a.now())
			a.log.Info("summary", "interval", interval.String(),
				"received", s.Received-last.Received, "offers", s.Offers-last.Offers, "acks", s.Acks-last.Acks,
				"naks", s.Naks-last.Naks, "declines", s.Declines-last.Declines, "lifts", s.Lifts-last.Lifts, "releases", s.Releases-last.Releases,
				"drops", s.Drops-last.Drops, "sendErrors", s.SendErrors-last.SendErrors,
				"pool", s.Pool, "resourceVersion", s.ResourceVersion, "leases", s.Leases, "loads", s.Loads,
				"onProbation", s.OnProbation)
			last = s
		}
	}
}
