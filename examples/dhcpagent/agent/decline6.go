package agent

import (
	"sync"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
)

// remember6 applies what a decision reports: the binding REPLY for the
// decline window, a probation lifted, a RELEASE, a DECLINE.
func (a *Agent) remember6(v *version, m *dhcp6wire.Message, d dhcp6.Decision, now time.Time) {
	if d.Bound {
		b := a.bound6.Load()
		if b == nil {
			bound6Once.Lock()
			if b = a.bound6.Load(); b == nil {
				b = new(bindings6)
				a.bound6.Store(b)
			}
			bound6Once.Unlock()
		}
		b.record(d.Lease.Addr, now)
	}
	// Each is counted last, once logged (and passed to the hook): a
	// count seen means the rest is done.
	if d.Lifted && a.probation.Lift(d.Client.MAC, d.Lease.Addr, now) {
		if ok, skipped := a.liftLines.allow(now); ok {
			a.log.Info("DHCPv6: probation lifted, the client asks to keep the address declined in its name",
				"pool", v.pool, "mac", d.Client.MAC.String(), "addr", d.Lease.Addr.String(), "notLogged", skipped)
		}
		a.counters6.Lifts.Add(1)
	}
	if d.Released.IsValid() {
		if ok, skipped := a.releaseLines.allow(now); ok {
			a.log.Info("DHCPv6 RELEASE", "pool", v.pool, "mac", d.Client.MAC.String(), "source", d.Client.Source.String(),
				"addr", d.Released.String(), "notLogged", skipped)
		}
		a.counters6.Releases.Add(1)
	}
	if !d.Declined.IsValid() {
		return
	}
	if a.declineWindow > 0 {
		if since, ok := a.bound6.Load().since(d.Declined, now); !ok || since > a.declineWindow {
			a.counters6.Drops.Add(1)
			if a.log.V(packetLevel).Enabled() {
				a.log.V(packetLevel).Info("DHCPv6 DECLINE ignored", "mac", d.Client.MAC.String(), "addr", d.Declined.String(),
					"reason", ErrNotJustBound.Error())
			}
			return
		}
	}
	until := a.probation.Decline(d.Client.MAC, d.Declined, now)
	dec := Decline{Pool: v.pool, MAC: d.Client.MAC.String(), Addr: d.Declined, Until: until}
	if ok, skipped := a.declineLines.allow(now); ok {
		a.log.Info("DHCPv6 DECLINE: address on probation", "pool", dec.Pool, "mac", dec.MAC,
			"source", d.Client.Source.String(), "addr", dec.Addr.String(),
			"until", until.UTC().Format(time.RFC3339), "notLogged", skipped)
	}
	if a.onDecline != nil {
		a.onDecline(dec)
	}
	a.counters6.Declines.Add(1)
}

// bound6Once serializes the allocation of an Agent's bindings6.
var bound6Once sync.Mutex
