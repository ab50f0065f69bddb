package e2e

import (
	"flag"
	"testing"
	"time"
)

var (
	randomRuns = flag.Int("e2e.random", 0, "after the fixed cases, run this many randomized fault sequences")
	randomSeed = flag.Int64("e2e.seed", 0, "the randomized sequences' seed (0: from the clock; the test prints the one it used)")
)

// TestE2E runs the whole chain and injects the faults of issue 34 one
// after the other on one setup, asserting the invariants after each (see
// the package doc), and logs the table of their counts.
func TestE2E(t *testing.T) {
	s := setUp(t)
	a := s.agents[0]
	s.runCase("no fault (baseline)", s.steady(10*time.Second), nil, nil)
	s.runCase("operator SIGKILLed in a burst of 40 new configs, restarted", s.killOperatorInBurst(40, 15), nil, nil)
	s.runCase("agent SIGKILLed while clients renew, restarted 2 s later", s.restartAgent(a, 2*time.Second), nil, nil)
	change, changed := s.changePoolWhileAgentDown(a, "10.88.0.200")
	s.runCase("pool changed while the agent is down (a NIC removed, an address moved)", change, changed,
		func(c *vmClient) bool { return c.name() == "mover" })
	s.runCase("API server stopped 60 s while clients renew", s.apiServerOutage(60*time.Second), nil, nil)
	s.runCase("agent restarted while the API server is down", s.restartAgentWithoutAPIServer(a, 15*time.Second), nil, nil)
	if *randomRuns > 0 {
		s.randomized(*randomRuns, *randomSeed)
	}
	s.runCase("a second agent added (-server-ip iface, -peers4), the pool's server address retired", s.addSecondAgent(), nil, nil)
	s.runCase("two agents up, two clients restarted (DISCOVER, two OFFERs, one selected)", s.restartClients("mover", "dhcpcd"), nil, nil)
	s.runCase("one of two agents SIGKILLed while clients renew, restarted", s.killOneOfTwo(), nil, nil)
	s.runCase("two agents up, a genuine DECLINE and a forged one", s.declineGenuineAndSpoofed(), nil, nil)
	t.Logf("the cases' counts:\n%s", table(s.cases))
}
