package agent

import (
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
)

// Respond is RespondAt at the agent's clock's now.
func (a *Agent) Respond(req *dhcpv4.DHCPv4) (*dhcpv4.DHCPv4, error) {
	return a.RespondAt(req, a.now())
}

// RespondAt is ReplyTo on the table being served, read once, with the
// addresses on probation at now held back.
//
// A reply that leaves options out to fit the client's limit (see
// ReplyWithTrim) is reported once per load of the pool and option: the
// first reply that cuts an option logs a line naming the pool version,
// the limit and each option it cut that no earlier reply under this table
// has reported; later replies are counted, and the count is logged when
// the table is replaced. A pool whose options do not fit a client is a
// configuration to fix, not an event per packet.
//
// The reply is the caller's; Handle builds its replies in reused memory
// instead (see respondIn).
func (a *Agent) RespondAt(req *dhcpv4.DHCPv4, now time.Time) (*dhcpv4.DHCPv4, error) {
	return a.respondIn(nil, req, now)
}

// respondIn is RespondAt with the reply built in s (see replyTo): valid
// until s is used again.
func (a *Agent) respondIn(s *dhcp4.Scratch, req *dhcpv4.DHCPv4, now time.Time) (*dhcpv4.DHCPv4, error) {
	v := a.table.Load()
	var ack dhcp4.Ack
	resp, trim, err := dhcp4.Decide(s, req, a.tableAt(v, now), &ack)
	if len(trim.Cuts) > 0 {
		v.report(a.log, req, trim)
	}
	if ack.Addr.IsValid() {
		a.acked(v, ack, now)
	}
	return resp, err
}

// acked notes an ACK to a REQUEST: the binding of its address, when the
// REQUEST bound it (see bindings), and the end of the probation of an
// address the client asked to keep after a decline in its name, which
// its REQUEST disproves.
func (a *Agent) acked(v *version, ack dhcp4.Ack, now time.Time) {
	if ack.Binding && a.declineWindow > 0 {
		b := a.bound.Load()
		if b == nil {
			a.bound.CompareAndSwap(nil, new(bindings))
			b = a.bound.Load()
		}
		b.record(ack.Addr, now)
	}
	if ack.OwnDecline && a.probation.Lift(ack.MAC, ack.Addr, now) {
		a.counters.Lifts.Add(1)
		if ok, skipped := a.liftLines.allow(now); ok {
			attrs := []any{"pool", v.pool, "mac", ack.MAC.String(), "addr", ack.Addr.String()}
			if skipped > 0 {
				attrs = append(attrs, "notLogged", skipped)
			}
			a.log.Info("DECLINE disproved: the client asked to keep the address, probation lifted", attrs...)
		}
	}
}
