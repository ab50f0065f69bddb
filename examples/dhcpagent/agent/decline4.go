package agent

import (
	"fmt"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
)

// decline puts the address of an accepted DECLINE on probation.
func (a *Agent) decline(m *dhcpv4.DHCPv4, now time.Time) {
	v := a.table.Load()
	lease, err := dhcp4.Declined(m, a.tableWithProbation(v, now))
	if err == nil && a.declineWindow > 0 {
		if d, ok := a.bound.Load().since(lease.Addr, now); !ok || d > a.declineWindow {
			err = fmt.Errorf("%w: DECLINE from %s for %s", ErrNotJustBound, lease.MAC, lease.Addr)
		}
	}
	if err != nil {
		a.counters.Drops.Add(1)
		if a.log.V(packetLevel).Enabled() {
			a.log.V(packetLevel).Info("DECLINE ignored", "xid", m.TransactionID.String(), "mac", m.ClientHWAddr.String(),
				"reason", err.Error())
		}
		return
	}
	until := a.probation.Decline(lease.MAC, lease.Addr, now)
	a.counters.Declines.Add(1)
	d := Decline{Pool: v.pool, MAC: lease.MAC.String(), Addr: lease.Addr, Until: until}
	if ok, skipped := a.declineLines.allow(now); ok {
		attrs := []any{"pool", d.Pool, "mac", d.MAC, "addr", d.Addr.String(),
			"until", until.UTC().Format(time.RFC3339), "message", clientText(m.Options[dhcpv4.OptionMessage.Code()])}
		if skipped > 0 {
			attrs = append(attrs, "notLogged", skipped)
		}
		a.log.Info("DECLINE: address on probation", attrs...)
	}
	if a.onDecline != nil {
		a.onDecline(d)
	}
}

// release logs an accepted RELEASE.
func (a *Agent) release(m *dhcpv4.DHCPv4, now time.Time) {
	v := a.table.Load()
	lease, err := dhcp4.Released(m, a.tableWithProbation(v, now))
	if err != nil {
		a.counters.Drops.Add(1)
		if a.log.V(packetLevel).Enabled() {
			a.log.V(packetLevel).Info("RELEASE ignored", "xid", m.TransactionID.String(), "mac", m.ClientHWAddr.String(),
				"reason", err.Error())
		}
		return
	}
	a.counters.Releases.Add(1)
	if ok, skipped := a.releaseLines.allow(now); ok {
		attrs := []any{"pool", v.pool, "mac", lease.MAC.String(), "addr", lease.Addr.String()}
		if skipped > 0 {
			attrs = append(attrs, "notLogged", skipped)
		}
		a.log.Info("RELEASE", attrs...)
	}
}
