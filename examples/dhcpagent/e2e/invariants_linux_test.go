package e2e

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// boundState is what the control plane holds bound: the pool's status
// (address -> owner, both families) and each config's NIC status.
type boundState struct {
	allocated map[string]string
	nics      map[string]string // config name -> its status NICs
	version   string            // the pool's resourceVersion
}

// bound reads the bound state through the API server.
func (s *system) bound() boundState {
	s.t.Helper()
	ctx := context.Background()
	pool := &v1alpha1.IPPool{}
	if err := s.c.Get(ctx, client.ObjectKey{Namespace: poolNS, Name: poolName}, pool); err != nil {
		s.t.Fatal(err)
	}
	b := boundState{allocated: map[string]string{}, nics: map[string]string{}, version: pool.ResourceVersion}
	for a, o := range pool.Status.Allocated {
		b.allocated[a] = o
	}
	if pool.Status.IPv6 != nil {
		for a, o := range pool.Status.IPv6.Allocated {
			b.allocated[a] = o
		}
	}
	list := &v1alpha1.VMNetworkConfigList{}
	if err := s.c.List(ctx, list, client.InNamespace(poolNS)); err != nil {
		s.t.Fatal(err)
	}
	for _, cfg := range list.Items {
		b.nics[cfg.Name] = fmt.Sprint(cfg.Status.NICs)
	}
	return b
}

// rewritten lists what after changed or dropped of before's entries,
// but for the keys (addresses, owners, config names) the case changes on
// purpose.
func rewritten(before, after boundState, changed []string) []string {
	var out []string
	for a, o := range before.allocated {
		if slices.Contains(changed, a) || slices.Contains(changed, o) {
			continue
		}
		if after.allocated[a] != o {
			out = append(out, fmt.Sprintf("pool status %s: %q, was %q", a, after.allocated[a], o))
		}
	}
	for name, nics := range before.nics {
		if slices.Contains(changed, name) {
			continue
		}
		if after.nics[name] != nics {
			out = append(out, fmt.Sprintf("config %s status %s, was %s", name, after.nics[name], nics))
		}
	}
	slices.Sort(out)
	return out
}

// held counts the clients whose kernel holds their pool's address now.
func (s *system) held() int {
	n := 0
	for _, c := range s.clients {
		if slices.Contains(c.h.addrs(s.t), c.want()) {
			n++
		}
	}
	return n
}

// violations checks the invariants over case c: every address a client
// got or holds is its pool's (at that time), no address is on two
// clients, no client dropped its address unless mayDrop(client) says the
// case moves it, every client is ready by vmnetkit's readiness rule, and
// the bound state before the case is not rewritten but for changed.
func (s *system) violations(c *caseCounts, before boundState, changed []string, mayDrop func(*vmClient) bool) []string {
	var out []string
	owner := map[netip.Addr]string{}
	for _, vm := range s.clients {
		for _, p := range vm.wire.replies(c.from, c.to) {
			if p.addr.IsValid() && !p.addr.IsUnspecified() && !vm.allowed(p.addr, p.at) {
				out = append(out, fmt.Sprintf("%s was offered %s (%s at %s), not its pool's", vm.name(), p.addr, p.typ, p.at.Format("15:04:05.000")))
			}
			if p.typ == "NAK" && !mayDrop(vm) {
				out = append(out, fmt.Sprintf("%s got a NAK at %s", vm.name(), p.at.Format("15:04:05.000")))
			}
		}
		// A REQUEST that selects one agent's OFFER is answered by that
		// agent alone.
		for _, x := range vm.wire.exchanges(c.from, c.to) {
			if x.req.v6 || x.req.typ != "REQUEST" || x.req.serverID == "" {
				continue
			}
			for _, r := range x.replies {
				if r.serverID != x.req.serverID {
					out = append(out, fmt.Sprintf("%s's REQUEST xid %s selecting %s answered by %s (%s)", vm.name(), x.req.xid, x.req.serverID, r.serverID, r.typ))
				}
			}
		}
		heldEvents, dropped := vm.events()
		for _, e := range heldEvents {
			if e.at.IsZero() && !vm.allowed(e.addr, time.Now()) && !vm.allowed(e.addr, c.from) ||
				!e.at.IsZero() && !e.at.Before(c.from) && !vm.allowed(e.addr, e.at) {
				out = append(out, fmt.Sprintf("%s's script configured %s (%s), not its pool's", vm.name(), e.addr, e.what))
			}
		}
		for _, e := range dropped {
			if (e.at.IsZero() || !e.at.Before(c.from)) && !mayDrop(vm) {
				out = append(out, fmt.Sprintf("%s dropped its address %s (%s at %s)", vm.name(), e.addr, e.what, e.at.Format("15:04:05.000")))
			}
		}
		for _, a := range vm.h.addrs(s.t) {
			if !vm.allowed(a, time.Now()) {
				out = append(out, fmt.Sprintf("%s holds %s, not its pool's", vm.name(), a))
			}
			if o, dup := owner[a]; dup {
				out = append(out, fmt.Sprintf("%s on two clients: %s and %s", a, o, vm.name()))
			}
			owner[a] = vm.name()
		}
		if v := vm.verdict(); !v.Ready {
			out = append(out, fmt.Sprintf("%s not ready: %s: %s", vm.name(), v.Reason, v.Message))
		}
	}
	after := s.bound()
	out = append(out, rewritten(before, after, changed)...)
	// No address on two configs either.
	seen := map[string]string{}
	for name, nics := range after.nics {
		for _, f := range strings.Fields(strings.Trim(nics, "[]{}")) {
			if a, err := netip.ParseAddr(strings.Trim(f, "{}")); err == nil {
				if o, dup := seen[a.String()]; dup {
					out = append(out, fmt.Sprintf("%s in two configs' status: %s and %s", a, o, name))
				}
				seen[a.String()] = name
			}
		}
	}
	return out
}
