package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// randomized runs n fault sequences chosen from seed (the clock's
// nanoseconds when seed is 0): each is two to four faults picked at
// random, with random downtimes, run as one case. The seed is logged
// first, so that a reviewer repeats a run with -e2e.seed.
func (s *system) randomized(n int, seed int64) {
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	s.t.Logf("randomized fault sequences: %d, seed %d (repeat with -e2e.random=%d -e2e.seed=%d)", n, seed, n, seed)
	r := rand.New(rand.NewPCG(uint64(seed), 0))
	a := s.agents[0]
	for i := range n {
		var names []string
		var faults []func(*caseCounts)
		for range 2 + r.IntN(3) {
			switch r.IntN(4) {
			case 0:
				k := 5 + r.IntN(20)
				names = append(names, fmt.Sprintf("operator killed in a burst of %d", k))
				faults = append(faults, s.deletingBurst(s.killOperatorInBurst(k, r.IntN(k))))
			case 1:
				d := time.Duration(r.IntN(4000)) * time.Millisecond
				names = append(names, fmt.Sprintf("agent down %v", d))
				faults = append(faults, s.restartAgent(a, d))
			case 2:
				d := time.Duration(5+r.IntN(25)) * time.Second
				names = append(names, fmt.Sprintf("API server down %v", d))
				faults = append(faults, s.apiServerOutage(d))
			case 3:
				d := time.Duration(3+r.IntN(10)) * time.Second
				names = append(names, fmt.Sprintf("agent restarted without API server, %v", d))
				faults = append(faults, s.restartAgentWithoutAPIServer(a, d))
			}
			// A random pause before each fault, so that it lands anywhere
			// in the clients' renewal cycle.
			pause := time.Duration(r.IntN(4000)) * time.Millisecond
			faults[len(faults)-1] = pausing(pause, faults[len(faults)-1])
		}
		s.runCase(fmt.Sprintf("random %d/%d: %v", i+1, n, names), func(c *caseCounts) {
			for _, f := range faults {
				f(c)
			}
			c.measureWhat, c.measure = "", 0
		}, nil, nil)
	}
}

func pausing(d time.Duration, f func(*caseCounts)) func(*caseCounts) {
	return func(c *caseCounts) { time.Sleep(d); f(c) }
}

// deletingBurst runs f, which creates burst configs, and deletes the ones
// it created once f has seen them served: the bursts of twenty sequences
// would otherwise fill the pool (241 addresses), and a config left without
// an address would read as the operator's failure.
func (s *system) deletingBurst(f func(*caseCounts)) func(*caseCounts) {
	return func(c *caseCounts) {
		from := s.created
		f(c)
		for n := from; n < s.created; n++ {
			if err := s.c.Delete(context.Background(), burstConfig(n)); client.IgnoreNotFound(err) != nil {
				s.t.Fatalf("delete %s: %v", burstConfig(n).Name, err)
			}
		}
		// Released before the next case reads the bound state, which must
		// not change under it.
		kubetest.Eventually(s.t, 2*time.Minute, "the deleted burst configs released", func() (bool, string) {
			b, left := s.bound(), 0
			for n := from; n < s.created; n++ {
				mac := burstConfig(n).Spec.NICs[0].MAC
				if _, ok := b.nics[burstConfig(n).Name]; ok {
					left++
				}
				for _, o := range b.allocated {
					if strings.Contains(strings.ToLower(o), mac) {
						left++
					}
				}
			}
			return left == 0, fmt.Sprintf("%d configs or pool entries left", left)
		})
	}
}
