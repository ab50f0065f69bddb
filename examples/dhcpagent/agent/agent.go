package agent

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/probation"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// Agent serves one pool's lease table. Its table is an atomic pointer:
// loads build a new table and swap it in, requests read it once each, so
// neither waits for the other and every reply comes from one table.
//
// The zero Agent is not usable; make one with New. An Agent is safe for
// concurrent use: any number of requests may be handled while a load runs,
// and concurrent loads are serialized.
type Agent struct {
	table     atomic.Pointer[version]
	log       logr.Logger
	probation *probation.Set
	now       func() time.Time
	onDecline func(Decline)
	counters  counters

	// declineWindow is how long after a binding ACK a DECLINE of the
	// address is accepted (zero or less: any time); bound remembers the
	// binding ACKs, allocated at the first.
	declineWindow time.Duration
	bound         atomic.Pointer[bindings]
	// The lines any client can cause, each kind limited (see logBurst).
	declineLines, releaseLines, liftLines lineLimit

	mu   sync.Mutex // serializes loads, so each plan is against the table it replaces
	seen fileState  // the pool file as last read, for Watch
}

// Option configures an Agent made by New.
type Option func(*Agent)

// WithProbation sets how long a declined address is not offered again
// (default probation.DefaultPeriod; zero or less: a DECLINE is logged and counted
// but holds nothing).
func WithProbation(d time.Duration) Option {
	return func(a *Agent) { a.probation = probation.NewSet(d) }
}

// WithDeclineWindow sets how long after the agent ACKs a REQUEST that
// binds an address (ciaddr zero) it accepts a DECLINE of that address
// (default DefaultDeclineWindow; zero or less: at any time, as long as the
// address is the client's). See the package documentation for the rule.
func WithDeclineWindow(d time.Duration) Option {
	return func(a *Agent) { a.declineWindow = d }
}

// WithClock sets the clock Handle and Respond read to decide probation
// (default time.Now); tests inject theirs.
func WithClock(now func() time.Time) Option {
	return func(a *Agent) { a.now = now }
}

// WithDeclineHook calls fn for every DECLINE the agent accepts, after it
// put the address on probation and logged it, on the goroutine that
// handles the packet: fn must not block (the API-server mode hands it to
// an event recorder, which queues).
func WithDeclineHook(fn func(Decline)) Option {
	return func(a *Agent) { a.onDecline = fn }
}

// Decline is one DECLINE the agent accepted.
type Decline struct {
	Pool  string     // the pool's namespace/name
	MAC   string     // the client that declined
	Addr  netip.Addr // the address it declined
	Until time.Time  // the end of the address's probation
}

// New returns an Agent with no table (it answers nobody until a load),
// configured by opts, logging to log's handler: what an operator acts on
// at slog.LevelInfo, one line per packet at packetLevel (slog level -1,
// through logr.FromSlogHandler). A nil log discards, unless WithLogger
// gives a logr.Logger, as the commands do.
func New(log *slog.Logger, opts ...Option) *Agent {
	a := &Agent{probation: probation.NewSet(probation.DefaultPeriod), now: time.Now, declineWindow: DefaultDeclineWindow}
	if log != nil {
		a.log = logr.FromSlogHandler(log.Handler())
	}
	for _, o := range opts {
		o(a)
	}
	return a
}

// WithLogger logs to l instead of New's slog.Logger: what an operator
// acts on at level 0, one line per packet at l.V(packetLevel).
func WithLogger(l logr.Logger) Option {
	return func(a *Agent) { a.log = l }
}

// Table returns the lease table being served, nil before the first load.
func (a *Agent) Table() *leasestore.Store { return a.table.Load().store() }

// Probation is the set of declined addresses the agent holds back.
func (a *Agent) Probation() *probation.Set { return a.probation }

// TableAt is the Table being served with the probation at now: what
// RespondAt answers from. Before the first load it is the zero Table.
func (a *Agent) TableAt(now time.Time) Table {
	return a.tableWithProbation(a.table.Load(), now)
}

// tableWithProbation is the Table of v with the Agent's probation at now,
// whether or not it holds an address yet (a decline after the Table was
// made still counts, as it does for Declined and Released).
func (a *Agent) tableWithProbation(v *version, now time.Time) Table {
	t := a.tableAt(v, now)
	if v != nil {
		t.Probation, t.Now = a.probation, now
	}
	return t
}

// tableAt is the Table of v (the zero Table for nil) for one reply, with
// the probation at now only while it holds an address: the common case,
// nothing on probation, then asks it nothing. Callers load v once, so that
// what they report names the version they answered from.
func (a *Agent) tableAt(v *version, now time.Time) Table {
	if v == nil {
		return Table{}
	}
	t := Table{Leases: v.table, Prefix: v.prefix, Options: v.options, options: &v.encoded}
	if !a.probation.Empty() {
		t.Probation, t.Now = a.probation, now
	}
	return t
}

// version is one load of the pool: its table, and what its replies have
// reported of the options they left out (see Respond).
type version struct {
	table           *leasestore.Store
	prefix          netip.Prefix
	options         *leasestore.Options
	pool            string
	resourceVersion string
	trimmed         atomic.Int64 // replies that left out an option
	encoded         optionCache  // the options its replies carry, encoded once

	mu       sync.Mutex       // serializes the reports, so that one reply reports all it cut
	reported [256]atomic.Bool // option codes whose cut has been logged; set under mu
}

func (v *version) store() *leasestore.Store {
	if v == nil {
		return nil
	}
	return v.table
}

// Update is the outcome of one load.
type Update struct {
	Pool     string          // the pool's namespace/name
	Leases   int             // leases in the new table
	Plan     leasestore.Plan // from the previous table (none: every lease is an add)
	Problems []error         // what the load left out, in the order Config, ipam and leasestore report them
}

// Load decodes data as a Pool and applies it; see Apply. On an error the
// table being served is left as it was.
func (a *Agent) Load(data []byte) (Update, error) {
	p, err := DecodePool(data)
	if err != nil {
		a.log.Error(err, "pool rejected, table unchanged")
		return Update{}, err
	}
	return a.Apply(p)
}

// Apply builds the lease table of p (Pool.Config, ipam.ParseAllocated,
// leasestore.Build), swaps it in, and logs a summary, then the adds,
// updates, removes and problems (up to 50 lines of each). A pool whose spec
// is invalid is an error and leaves the table being served as it was;
// problems with single entries or options only leave those out.
func (a *Agent) Apply(p *Pool) (Update, error) {
	a.mu.Lock()
	defer a.mu.Unlock()

	spec, opts, problems, err := p.Config()
	if err != nil {
		a.log.Error(err, "pool rejected, table unchanged", "pool", p.Name())
		return Update{}, err
	}
	snap, ipamProblems := ipam.ParseAllocated(spec, p.Status.Allocated)
	for _, pr := range ipamProblems {
		problems = append(problems, pr)
	}
	store, storeProblems := leasestore.Build(snap, opts)
	for _, pr := range storeProblems {
		if errors.Is(pr, ipam.ErrInvalidSpec) { // Config validated it; never serve an empty table for it
			err := fmt.Errorf("agent: pool %q: %w", p.Name(), pr.Err)
			a.log.Error(err, "pool rejected, table unchanged", "pool", p.Name())
			return Update{}, err
		}
		problems = append(problems, pr) // its text names the entry
	}

	old := a.table.Swap(&version{table: store, prefix: spec.Prefix, options: store.Options(),
		pool: p.Name(), resourceVersion: p.Metadata.ResourceVersion})
	a.counters.loads.Add(1)
	u := Update{Pool: p.Name(), Leases: store.Len(), Plan: leasestore.Diff(old.store(), store), Problems: problems}
	a.logUpdate(p, u)
	if old != nil {
		if n := old.trimmed.Load(); n > 0 {
			a.log.Info("replies trimmed under the replaced table", "pool", old.pool,
				"resourceVersion", old.resourceVersion, "count", n)
		}
	}
	return u, nil
}

// maxLogged bounds the lines one load logs per kind (adds, updates,
// removes, problems), so that loading a pool of a million leases does not
// log a million lines; the summary line has the full counts.
const maxLogged = 50

func (a *Agent) logUpdate(p *Pool, u Update) {
	a.log.Info("table swapped", "pool", u.Pool, "resourceVersion", p.Metadata.ResourceVersion,
		"leases", u.Leases, "add", len(u.Plan.Add), "update", len(u.Plan.Update),
		"remove", len(u.Plan.Remove), "problems", len(u.Problems))
	for i, l := range u.Plan.Add {
		if i == maxLogged {
			a.log.Info("more adds not logged", "count", len(u.Plan.Add)-i)
			break
		}
		a.log.Info("add", "mac", l.MAC.String(), "addr", l.Addr.String())
	}
	for i, c := range u.Plan.Update {
		if i == maxLogged {
			a.log.Info("more updates not logged", "count", len(u.Plan.Update)-i)
			break
		}
		a.log.Info("update", "mac", c.New.MAC.String(), "from", c.Old.Addr.String(), "to", c.New.Addr.String())
	}
	for i, l := range u.Plan.Remove {
		if i == maxLogged {
			a.log.Info("more removes not logged", "count", len(u.Plan.Remove)-i)
			break
		}
		a.log.Info("remove", "mac", l.MAC.String(), "addr", l.Addr.String())
	}
	for i, pr := range u.Problems {
		if i == maxLogged {
			a.log.Info("more problems not logged", "pool", u.Pool, "count", len(u.Problems)-i)
			break
		}
		a.log.Info("problem", "pool", u.Pool, "err", pr.Error())
	}
}

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
func (a *Agent) respondIn(s *replyScratch, req *dhcpv4.DHCPv4, now time.Time) (*dhcpv4.DHCPv4, error) {
	v := a.table.Load()
	var ack ackNote
	resp, trim, err := decide(s, req, a.tableAt(v, now), &ack)
	if len(trim.Cuts) > 0 {
		v.report(a.log, req, trim)
	}
	if ack.addr.IsValid() {
		a.acked(v, ack, now)
	}
	return resp, err
}

// acked notes an ACK to a REQUEST: the binding of its address, when the
// REQUEST bound it (see bindings), and the end of the probation of an
// address the client asked to keep after a decline in its name, which
// its REQUEST disproves.
func (a *Agent) acked(v *version, ack ackNote, now time.Time) {
	if ack.binding && a.declineWindow > 0 {
		b := a.bound.Load()
		if b == nil {
			a.bound.CompareAndSwap(nil, new(bindings))
			b = a.bound.Load()
		}
		b.record(ack.addr, now)
	}
	if ack.ownDecline && a.probation.Lift(ack.mac, ack.addr, now) {
		a.counters.lifts.Add(1)
		if ok, skipped := a.liftLines.allow(now); ok {
			attrs := []any{"pool", v.pool, "mac", ack.mac.String(), "addr", ack.addr.String()}
			if skipped > 0 {
				attrs = append(attrs, "notLogged", skipped)
			}
			a.log.Info("DECLINE disproved: the client asked to keep the address, probation lifted", attrs...)
		}
	}
}

// report counts a reply that left out what trim says, and logs the cuts
// that no reply under v has logged yet.
func (v *version) report(log logr.Logger, req *dhcpv4.DHCPv4, trim Trim) {
	v.trimmed.Add(1)
	if !slices.ContainsFunc(trim.Cuts, func(c Cut) bool { return !v.reported[c.Code].Load() }) {
		return // the common case, once the first replies have reported
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	var first []string
	for _, c := range trim.Cuts {
		if !v.reported[c.Code].Load() {
			v.reported[c.Code].Store(true)
			first = append(first, c.String())
		}
	}
	if len(first) > 0 {
		log.Info("reply trimmed to fit the client", "pool", v.pool, "resourceVersion", v.resourceVersion,
			"mac", req.ClientHWAddr.String(), "limit", trim.Limit, "cut", strings.Join(first, "; "))
	}
}

// Handle is the agent's server4.Handler: it answers m on conn at
// Destination, or takes note of a DECLINE or RELEASE, and counts each
// (see Stats). Serve calls the same code with the socket's own address
// values, without the net.Addr allocations.
//
// A DECLINE of the client's own address (see Declined), within the
// decline window after the agent's ACK that bound it (see the package
// documentation), puts the address on probation, is logged at level 0
// with the MAC, the address and the client's message (quoted and cut, see
// clientText), and is passed to the decline hook; an accepted RELEASE is
// logged at level 0. Those level-0 lines are limited to logBurst a minute
// of each kind; the summary counts them all. Every reply, and every
// message that gets none and why, is logged at packetLevel.
// A NAK that cannot be sent to ciaddr is broadcast instead.
func (a *Agent) Handle(conn net.PacketConn, peer net.Addr, m *dhcpv4.DHCPv4) {
	w, ok := conn.(replyWriter)
	if !ok {
		w = packetConnWriter{conn}
	}
	a.handle(w, addrPortOf(peer), m)
}

// replyWriter is what handle sends replies with: *net.UDPConn and *Socket
// have it.
type replyWriter interface {
	WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error)
}

// packetConnWriter sends through any other net.PacketConn.
type packetConnWriter struct{ net.PacketConn }

func (w packetConnWriter) WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error) {
	return w.WriteTo(b, net.UDPAddrFromAddrPort(addr))
}

func (a *Agent) handle(conn replyWriter, peer netip.AddrPort, m *dhcpv4.DHCPv4) {
	now := a.now()
	a.counters.received.Add(1)
	switch messageTypeOf(m) {
	case dhcpv4.MessageTypeDecline:
		a.decline(m, now)
		return
	case dhcpv4.MessageTypeRelease:
		a.release(m, now)
		return
	}
	scratch := replyScratches.Get().(*replyScratch) // resp lives in it until Handle returns
	defer replyScratches.Put(scratch)
	resp, err := a.respondIn(scratch, m, now)
	if err != nil {
		a.counters.drops.Add(1)
		if a.log.V(packetLevel).Enabled() { // the arguments cost more than the decision
			a.log.V(packetLevel).Info("no reply", "xid", m.TransactionID.String(), "mac", m.ClientHWAddr.String(),
				"type", m.MessageType().String(), "reason", err.Error())
		}
		return
	}
	typ := messageTypeOf(resp)
	dst := destination(m, resp, peer)
	buf := sendBuffers.Get().(*[]byte)
	defer sendBuffers.Put(buf)
	b := appendMessage((*buf)[:0], resp)
	*buf = b
	_, err = conn.WriteToUDPAddrPort(b, dst)
	if err != nil && typ == dhcpv4.MessageTypeNak && dst != broadcast && dst.Port() == ClientPort {
		if a.log.V(packetLevel).Enabled() {
			a.log.V(packetLevel).Info("NAK to ciaddr failed, broadcasting it", "xid", resp.TransactionID.String(),
				"to", dst.String(), "err", err.Error())
		}
		dst = broadcast
		_, err = conn.WriteToUDPAddrPort(b, dst)
	}
	if err != nil {
		a.counters.sendErrors.Add(1)
		a.log.Error(err, "send failed", "xid", m.TransactionID.String(), "to", dst.String())
		return
	}
	a.counters.reply(typ)
	if !a.log.V(packetLevel).Enabled() {
		return
	}
	attrs := []any{"xid", resp.TransactionID.String(), "mac", resp.ClientHWAddr.String(), "to", dst.String()}
	if typ == dhcpv4.MessageTypeNak {
		attrs = append(attrs, "reason", resp.Message())
	} else {
		attrs = append(attrs, "addr", resp.YourIPAddr.String())
	}
	a.log.V(packetLevel).Info(typ.String(), attrs...)
}

// decline puts the address of an accepted DECLINE on probation.
func (a *Agent) decline(m *dhcpv4.DHCPv4, now time.Time) {
	v := a.table.Load()
	lease, err := Declined(m, a.tableWithProbation(v, now))
	if err == nil && a.declineWindow > 0 {
		if d, ok := a.bound.Load().since(lease.Addr, now); !ok || d > a.declineWindow {
			err = fmt.Errorf("%w: DECLINE from %s for %s", ErrNotJustBound, lease.MAC, lease.Addr)
		}
	}
	if err != nil {
		a.counters.drops.Add(1)
		if a.log.V(packetLevel).Enabled() {
			a.log.V(packetLevel).Info("DECLINE ignored", "xid", m.TransactionID.String(), "mac", m.ClientHWAddr.String(),
				"reason", err.Error())
		}
		return
	}
	until := a.probation.Decline(lease.MAC, lease.Addr, now)
	a.counters.declines.Add(1)
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
	lease, err := Released(m, a.tableWithProbation(v, now))
	if err != nil {
		a.counters.drops.Add(1)
		if a.log.V(packetLevel).Enabled() {
			a.log.V(packetLevel).Info("RELEASE ignored", "xid", m.TransactionID.String(), "mac", m.ClientHWAddr.String(),
				"reason", err.Error())
		}
		return
	}
	a.counters.releases.Add(1)
	if ok, skipped := a.releaseLines.allow(now); ok {
		attrs := []any{"pool", v.pool, "mac", lease.MAC.String(), "addr", lease.Addr.String()}
		if skipped > 0 {
			attrs = append(attrs, "notLogged", skipped)
		}
		a.log.Info("RELEASE", attrs...)
	}
}
