package agent

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
)

// version4 is the DHCPv4 handler's part of one table version: the leases'
// options encoded once for its replies, and what its replies have reported
// of the options they left out (see RespondAt).
type version4 struct {
	encoded  dhcp4.OptionCache
	trimmed  atomic.Int64     // replies that left out an option
	mu       sync.Mutex       // serializes the reports, so that one reply reports all it cut
	reported [256]atomic.Bool // option codes whose cut has been logged; set under mu
}

// TableAt is the Table being served with the probation at now: what
// RespondAt answers from. Before the first load it is the zero Table.
func (a *Agent) TableAt(now time.Time) dhcp4.Table {
	return a.tableWithProbation(a.table.Load(), now)
}

// tableWithProbation is the Table of v with the Agent's probation at now,
// whether or not it holds an address yet (a decline after the Table was
// made still counts, as it does for Declined and Released).
func (a *Agent) tableWithProbation(v *version, now time.Time) dhcp4.Table {
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
func (a *Agent) tableAt(v *version, now time.Time) dhcp4.Table {
	if v == nil {
		return dhcp4.Table{}
	}
	t := dhcp4.Table{Leases: v.table, Prefix: v.prefix, Options: v.options, Peers: a.peers4, Cache: &v.v4.encoded}
	if !a.probation.Empty() {
		t.Probation, t.Now = a.probation, now
	}
	return t
}

// report counts a reply that left out what trim says, and logs the cuts
// that no reply under v has logged yet.
func (v *version) report(log logr.Logger, req *dhcpv4.DHCPv4, trim dhcp4.Trim) {
	v.v4.trimmed.Add(1)
	if !slices.ContainsFunc(trim.Cuts, func(c dhcp4.Cut) bool { return !v.v4.reported[c.Code].Load() }) {
		return // the common case, once the first replies have reported
	}
	v.v4.mu.Lock()
	defer v.v4.mu.Unlock()
	var first []string
	for _, c := range trim.Cuts {
		if !v.v4.reported[c.Code].Load() {
			v.v4.reported[c.Code].Store(true)
			first = append(first, c.String())
		}
	}
	if len(first) > 0 {
		log.Info("reply trimmed to fit the client", "pool", v.pool, "resourceVersion", v.resourceVersion,
			"mac", req.ClientHWAddr.String(), "limit", trim.Limit, "cut", strings.Join(first, "; "))
	}
}
