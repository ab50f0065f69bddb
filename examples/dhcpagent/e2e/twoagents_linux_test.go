package e2e

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The two-agent setup: two replicas of the agent on the segment, each
// answering with its own address as DHCPv4 server identifier
// (-server-ip iface) and naming the other's (-peers4), no lease sync.
// Their addresses are in the pool's excluded range.
const (
	agentA4, agentB4 = "10.88.0.4", "10.88.0.5"
	peers4           = "10.88.0.4/31" // both: a prefix may hold an agent's own address
	// haLease is the lease of the two-agent cases: T2 at 21 s, and 3 s of
	// rebinding before the lease ends. With the 8 s lease (1 s of
	// rebinding) ISC dhclient, whose retransmissions are up to 2 s apart
	// here, can pass from renewing straight to an expired lease without
	// one rebinding broadcast (it did in this test), so a client of a
	// dead agent loses its lease whatever the other agent does. Real
	// leases (hours) leave it an eighth of the lease.
	haLease = 24 * time.Second
)

// addSecondAgent turns the single agent into two replicas: it starts a
// second agent with -server-ip iface and -peers4, then SIGKILLs agent-a,
// gives it an address of its own instead of the pool's serverIP, and
// starts it again with the same flags. The second agent runs throughout,
// so that clients holding the retired server identifier, whose renewals
// unicast to an address no host has go unanswered, rebind with it (or
// with agent-a again) at T2, before their leases end.
func (s *system) addSecondAgent() func(*caseCounts) {
	return func(c *caseCounts) {
		s.setLease(haLease)
		ha := []string{"-server-ip", "iface", "-peers4", peers4}
		b := s.newAgent("agent-b", agentB4+"/24", "fd00:88::5/64")
		b.extra = ha
		s.agents = append(s.agents, b)
		b.start()
		a := s.agents[0]
		a.kill()
		netnstest.IP(s.t, "-n", a.h.NS, "addr", "del", serverIP+"/24", "dev", a.h.Iface)
		netnstest.IP(s.t, "-n", a.h.NS, "addr", "add", agentA4+"/24", "dev", a.h.Iface, "nodad")
		a.addr4 = netip.MustParseAddr(agentA4)
		a.extra = ha
		a.start()
	}
}

// restartClients kills the named clients' programs and starts them
// afresh (no lease file): each goes through DISCOVER, two OFFERs, and a
// REQUEST that selects one agent's, which the other must leave alone.
func (s *system) restartClients(names ...string) func(*caseCounts) {
	return func(c *caseCounts) {
		for _, n := range names {
			vm := s.client(n)
			vm.run4.Stop()
			vm.start()
		}
		for _, n := range names {
			s.client(n).waitBound(30 * time.Second)
		}
	}
}

// killOneOfTwo SIGKILLs the agent most DHCPv4 clients last renewed with,
// measures how long each of its clients takes to be served by the other
// (it must be before the client's lease ends, counted from the last ACK
// the dead agent gave it), and restarts the killed agent.
func (s *system) killOneOfTwo() func(*caseCounts) {
	return func(c *caseCounts) {
		lastServer := map[*vmClient]packet{}
		votes := map[string]int{}
		for _, vm := range s.clients {
			if vm.run4 == nil {
				continue
			}
			for _, p := range vm.wire.replies(time.Time{}, time.Now()) {
				if p.typ == "ACK" {
					lastServer[vm] = p
				}
			}
			votes[lastServer[vm].serverID]++
		}
		victim, survivor := s.agents[0], s.agents[1]
		if votes[survivor.addr4.String()] > votes[victim.addr4.String()] {
			victim, survivor = survivor, victim
		}
		killed := time.Now()
		victim.kill()
		var worst time.Duration
		for vm, last := range lastServer {
			if last.serverID != victim.addr4.String() {
				continue
			}
			// A client ACKed just before the kill rebinds 7/8 of its lease
			// later: wait the whole lease and more.
			served := s.waitServedBy(vm, survivor, killed, last.lease+5*time.Second)
			if served.IsZero() {
				s.t.Errorf("%s: not served by %s within %v of %s's SIGKILL", vm.name(), survivor.name, last.lease+5*time.Second, victim.name)
				continue
			}
			if end := last.at.Add(last.lease); served.After(end) {
				s.t.Errorf("%s: served by %s at %s, after its lease from %s ended (%s)", vm.name(), survivor.name,
					served.Format("15:04:05.000"), victim.name, end.Format("15:04:05.000"))
			}
			worst = max(worst, served.Sub(killed))
		}
		c.measureWhat = fmt.Sprintf("SIGKILL of %s to its last client served by %s", victim.name, survivor.name)
		c.measure = worst
		victim.start()
	}
}

// waitServedBy waits for an ACK from agent a to vm after from, and
// returns when it came (zero: none within timeout).
func (s *system) waitServedBy(vm *vmClient, a *agentProc, from time.Time, timeout time.Duration) time.Time {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		for _, p := range vm.wire.replies(from, time.Now()) {
			if p.typ == "ACK" && p.serverID == a.addr4.String() {
				return p.at
			}
		}
	}
	return time.Time{}
}

// setLease sets the pool's lease time to d, restarts the single agent
// so that it serves d at once (its watch may still be in client-go's
// backoff after an API-server outage), and waits until every DHCPv4
// client has been ACKed a lease of d.
func (s *system) setLease(d time.Duration) {
	s.t.Helper()
	ctx := context.Background()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pool := &v1alpha1.IPPool{}
		if err := s.c.Get(ctx, client.ObjectKey{Namespace: poolNS, Name: poolName}, pool); err != nil {
			return err
		}
		pool.Spec.LeaseTime = &metav1.Duration{Duration: d}
		return s.c.Update(ctx, pool)
	})
	if err != nil {
		s.t.Fatal(err)
	}
	s.agents[0].kill()
	s.agents[0].start()
	from := time.Now()
	kubetest.Eventually(s.t, 60*time.Second, fmt.Sprintf("every DHCPv4 client ACKed a %v lease", d), func() (bool, string) {
		for _, vm := range s.clients {
			if vm.run4 == nil {
				continue
			}
			got := false
			for _, p := range vm.wire.replies(from, time.Now()) {
				got = got || p.typ == "ACK" && p.lease == d
			}
			if !got {
				return false, vm.name() + " not yet"
			}
		}
		return true, ""
	})
}
