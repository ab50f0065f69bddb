package agent

import (
	"log/slog"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/metrics"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/probation"
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
	counters  metrics.Counters

	// declineWindow is how long after a binding ACK a DECLINE of the
	// address is accepted (zero or less: any time); bound remembers the
	// binding ACKs, allocated at the first.
	declineWindow time.Duration
	bound         atomic.Pointer[bindings]
	// serverID4 replaces the pool's serverIP when valid (WithServerID4);
	// peers4 are the other replicas' identifiers (WithPeers4).
	serverID4 netip.Addr
	peers4    []netip.Prefix
	// The lines any client can cause, each kind limited (see logBurst).
	declineLines, releaseLines, liftLines lineLimit
	sendLines, sendLines6, relayLines6    lineLimit
	oversizeLines6                        lineLimit

	// DHCPv6 (see Serve6): the server's DUID, its counters, and the
	// binding REPLYs, by address, for its decline window.
	serverID  []byte
	relays6   []netip.Prefix // WithRelays6
	counters6 metrics.Counters
	bound6    atomic.Pointer[bindings6]
	// checksums6 counts what the packet socket skipped for a bad
	// checksum, when Serve6 has one.
	checksums6 atomic.Pointer[interface{ BadChecksums() uint64 }]

	mu sync.Mutex // serializes loads, so each plan is against the table it replaces
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
// address is the client's). Why: docs/dhcpagent-design.md.
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

// WithServerDUID sets the DUID the agent names itself by in DHCPv6 (the
// SERVERID of its replies, and the one a client's REQUEST, RENEW, RELEASE
// and DECLINE must carry). Without it the agent answers no DHCPv6
// message. The command's rule: see its -duid flag.
func WithServerDUID(duid []byte) Option {
	return func(a *Agent) { a.serverID = append([]byte(nil), duid...) }
}

// WithRelays6 lists the DHCPv6 relay agents whose RELAY-FORW messages the
// agent answers: each prefix holds relay addresses (a /128 for one).
// Without it no relayed message is answered (dhcp6.ErrUntrustedRelay): a
// relay's client link-layer option and peer address choose the client's
// lease, so believing any host that sends a RELAY-FORW would let it take
// any MAC's address. Each prefix is masked; an IPv4 one matches nothing.
func WithRelays6(relays []netip.Prefix) Option {
	return func(a *Agent) {
		a.relays6 = make([]netip.Prefix, 0, len(relays))
		for _, p := range relays {
			a.relays6 = append(a.relays6, p.Masked())
		}
	}
}

// ServerDUID is the DUID set by WithServerDUID.
func (a *Agent) ServerDUID() []byte { return a.serverID }

// Decline is one DECLINE the agent accepted.
type Decline struct {
	Pool  string     // the pool's namespace/name
	MAC   string     // the client that declined
	Addr  netip.Addr // the address it declined (IPv4, or IPv6 for a DHCPv6 DECLINE)
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
