package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The faults, each a function a fixed case or a randomized sequence
// runs. Each leaves the system whole again (every part running) when it
// returns.

// steady lets the clients renew for d with nothing broken.
func (s *system) steady(d time.Duration) func(*caseCounts) {
	return func(*caseCounts) { time.Sleep(d) }
}

// killOperatorInBurst creates n new configs as fast as the API server
// takes them, SIGKILLs the operator after the at-th, creates the rest,
// restarts the operator and waits until every config is served.
func (s *system) killOperatorInBurst(n, at int) func(*caseCounts) {
	return func(c *caseCounts) {
		from := s.created
		s.createBurst(from, from+n, func(i int) {
			if i == from+at {
				s.operator.proc.kill()
			}
		})
		down := time.Now()
		s.startOperator()
		s.waitBurstServed(120 * time.Second)
		c.measureWhat, c.measure = "operator restart to every config served", time.Since(down)
	}
}

// restartAgent SIGKILLs agent a, leaves it down for down, and starts it
// again.
func (s *system) restartAgent(a *agentProc, down time.Duration) func(*caseCounts) {
	return func(c *caseCounts) {
		a.kill()
		time.Sleep(down)
		c.measureWhat, c.measure = "agent start to ready", a.start()
	}
}

// apiServerOutage stops the API server for d while the clients renew,
// then starts it again.
func (s *system) apiServerOutage(d time.Duration) func(*caseCounts) {
	return func(c *caseCounts) {
		s.cp.stopAPIServer()
		stopped := time.Now()
		time.Sleep(d)
		s.cp.startAPIServer()
		c.measureWhat, c.measure = "API server down", time.Since(stopped)
		s.t.Logf("the operator served a new config %v after the API server came back", s.operatorServesAgain())
	}
}

// operatorServesAgain creates one more config and returns how long the
// operator took to serve it: after an API-server outage its watches come
// back with client-go's backoff (up to 30 s, jittered up to twice that).
func (s *system) operatorServesAgain() time.Duration {
	s.t.Helper()
	back := time.Now()
	s.createBurst(s.created, s.created+1, nil)
	s.waitBurstServed(180 * time.Second)
	return time.Since(back)
}

// restartAgentWithoutAPIServer stops the API server, SIGKILLs agent a and
// starts it again while the API server is down (it serves its last-good
// copy after -state-wait), lets the clients renew for d, and starts the
// API server again. It measures the time from the agent's start to its
// first reply.
func (s *system) restartAgentWithoutAPIServer(a *agentProc, d time.Duration) func(*caseCounts) {
	return func(c *caseCounts) {
		if !a.lastGoodExists() {
			s.t.Fatalf("%s has no last-good copy in %s", a.name, a.stateDir)
		}
		s.cp.stopAPIServer()
		a.kill()
		a.start()
		if !strings.Contains(a.proc.log.String(), "serving the last-good copy") {
			s.t.Errorf("%s ready without the API server, but its log does not say it serves the last-good copy:\n%s", a.name, a.proc.log)
		}
		time.Sleep(d)
		first := a.firstReply()
		if first.IsZero() {
			s.t.Errorf("%s sent no reply in the %v after its start without the API server; log:\n%s", a.name, d, a.proc.log)
		}
		c.measureWhat, c.measure = "agent start (no API server) to its first reply", first.Sub(a.proc.started)
		s.cp.startAPIServer()
	}
}

// changePoolWhileAgentDown SIGKILLs agent a, and while it is down
// deletes one burst config (a NIC removed) and moves the mover VM to
// address to (its config recreated asking for it); once the pool's
// status says so, it starts the agent again, which must serve the new
// table: the mover is NAKed off its old address and binds the new one.
// It returns the keys the case changes.
func (s *system) changePoolWhileAgentDown(a *agentProc, to string) (func(*caseCounts), []string) {
	mover := s.client("mover")
	old := mover.want().String()
	gone := burstConfig(0)
	changed := []string{old, to, mover.config, gone.Name, gone.Spec.NICs[0].MAC, mover.h.MAC}
	return func(c *caseCounts) {
		ctx := context.Background()
		a.kill()
		del := func(obj client.Object) {
			if err := s.c.Delete(ctx, obj); err != nil {
				s.t.Fatal(err)
			}
			kubetest.Eventually(s.t, 30*time.Second, obj.GetName()+" deleted", func() (bool, string) {
				err := s.c.Get(ctx, client.ObjectKeyFromObject(obj), &v1alpha1.VMNetworkConfig{})
				return apierrors.IsNotFound(err), fmt.Sprint(err)
			})
		}
		del(gone)
		del(&v1alpha1.VMNetworkConfig{ObjectMeta: metav1.ObjectMeta{Namespace: poolNS, Name: mover.config}})
		moved := &v1alpha1.VMNetworkConfig{
			ObjectMeta: metav1.ObjectMeta{Namespace: poolNS, Name: mover.config},
			Spec:       v1alpha1.VMNetworkConfigSpec{NICs: []v1alpha1.NIC{{MAC: mover.h.MAC, Pool: poolName, Address: to}}},
		}
		if err := s.c.Create(ctx, moved); err != nil {
			s.t.Fatal(err)
		}
		var b boundState
		kubetest.Eventually(s.t, 30*time.Second, "the pool's status changed", func() (bool, string) {
			b = s.bound()
			_, goneStill := b.allocated[gone.Spec.NICs[0].MAC]
			ok := b.allocated[to] == mover.h.MAC && b.allocated[old] == "" && !goneStill && !strings.Contains(fmt.Sprint(b.allocated), gone.Spec.NICs[0].MAC)
			return ok, fmt.Sprint(b.allocated)
		})
		s.waitConfigs()
		a.start()
		// The agent's table is the pool's new version, never the old one.
		kubetest.Eventually(s.t, 10*time.Second, "the agent serving the pool's new version", func() (bool, string) {
			now := s.bound().version
			v := tableVersion(a.metrics())
			return v == now, "metrics table_info: " + v + ", pool " + now + ", changed at " + b.version
		})
		mover.waitBound(40 * time.Second)
		c.measureWhat, c.measure = "agent start to the mover bound at its new address", time.Since(a.proc.started)
	}, changed
}

var tableInfo = regexp.MustCompile(`dhcpagent_table_info\{[^}]*resource_version="([^"]*)"`)

// tableVersion is the pool version the agent's metrics say it serves.
func tableVersion(metrics string) string {
	if m := tableInfo.FindStringSubmatch(metrics); m != nil {
		return m[1]
	}
	return ""
}

// client is the VM named name.
func (s *system) client(name string) *vmClient {
	for _, c := range s.clients {
		if c.name() == name {
			return c
		}
	}
	s.t.Fatalf("no client %s", name)
	return nil
}
