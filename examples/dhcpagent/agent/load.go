package agent

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// version is one load of the pool: its lease table and the pool's facts,
// shared by every protocol, and each protocol handler's own state for
// this version (v4; a DHCPv6 handler adds its own field beside it).
type version struct {
	table           *leasestore.Store
	prefix          netip.Prefix
	options         *leasestore.Options
	pool            string
	resourceVersion string

	v4 version4  // the DHCPv4 handler's
	v6 *version6 // the pool's IPv6 part, the DHCPv6 handler's; nil: none, DHCPv6 answers no one
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
	Problems []error         // what the load left out, in the order Config, ipam and leasestore report them, then the IPv6 part's
	// Leases6 and Plan6 are the same for the pool's IPv6 part (spec.ipv6):
	// zero when it has none.
	Leases6 int
	Plan6   leasestore.Plan
}

// Apply builds the lease table of p (Pool.Config, ipam.ParseAllocated,
// leasestore.Build), swaps it in, and logs a summary, then the adds,
// updates, removes and problems (up to 50 lines of each). A pool whose spec
// is invalid is an error and leaves the table being served as it was;
// problems with single entries or options only leave those out.
func (a *Agent) Apply(p *poolsource.Pool) (Update, error) {
	a.mu.Lock()
	defer a.mu.Unlock()

	spec, opts, problems, err := p.Config()
	if err != nil {
		a.log.Error(err, "pool rejected, table unchanged", "pool", p.Name())
		return Update{}, err
	}
	if a.serverID4.IsValid() {
		opts.ServerIP = a.serverID4
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

	v6, problems6, err := build6(p)
	if err != nil {
		a.log.Error(err, "pool rejected, table unchanged", "pool", p.Name())
		return Update{}, err
	}
	problems = append(problems, problems6...)

	old := a.table.Swap(&version{table: store, prefix: spec.Prefix, options: store.Options(),
		pool: p.Name(), resourceVersion: p.Metadata.ResourceVersion, v6: v6})
	a.counters.Loads.Add(1)
	u := Update{Pool: p.Name(), Leases: store.Len(), Plan: leasestore.Diff(old.store(), store), Problems: problems}
	if v6 != nil {
		u.Leases6, u.Plan6 = v6.store.Len(), leasestore.Diff(old.store6(), v6.store)
	} else if old.store6() != nil {
		u.Plan6 = leasestore.Diff(old.store6(), nil)
	}
	a.logUpdate(p, u)
	if old != nil {
		if n := old.v4.trimmed.Load(); n > 0 {
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

func (a *Agent) logUpdate(p *poolsource.Pool, u Update) {
	a.log.Info("table swapped", "pool", u.Pool, "resourceVersion", p.Metadata.ResourceVersion,
		"leases", u.Leases, "add", len(u.Plan.Add), "update", len(u.Plan.Update),
		"remove", len(u.Plan.Remove), "problems", len(u.Problems))
	a.logPlan(u.Plan)
	if p6 := u.Plan6; u.Leases6 > 0 || len(p6.Add)+len(p6.Update)+len(p6.Remove) > 0 {
		a.log.Info("IPv6 table swapped", "pool", u.Pool, "resourceVersion", p.Metadata.ResourceVersion,
			"leases", u.Leases6, "add", len(p6.Add), "update", len(p6.Update), "remove", len(p6.Remove))
		a.logPlan(p6)
	}
	for i, pr := range u.Problems {
		if i == maxLogged {
			a.log.Info("more problems not logged", "pool", u.Pool, "count", len(u.Problems)-i)
			break
		}
		a.log.Info("problem", "pool", u.Pool, "err", pr.Error())
	}
}

// logPlan logs a plan's adds, updates and removes, up to maxLogged of each.
func (a *Agent) logPlan(plan leasestore.Plan) {
	u := Update{Plan: plan}
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
}
