package e2e

import (
	"time"
)

// runCase runs one fault case on the running system: fault injects it
// (and fills what it measures), then the case waits until every client
// holds its address and has had a renewal answered after the fault, and
// asserts the invariants over the whole window. changed lists the
// bound-state keys (addresses, MACs, config names) the case changes on
// purpose; mayDrop, the clients it lets drop an address (nil: none).
func (s *system) runCase(name string, fault func(c *caseCounts), changed []string, mayDrop func(*vmClient) bool) {
	s.t.Helper()
	if mayDrop == nil {
		mayDrop = func(*vmClient) bool { return false }
	}
	before := s.bound()
	c := caseCounts{name: name, from: time.Now(), heldBefore: s.held()}
	fault(&c)
	settled := time.Now()
	for _, vm := range s.clients {
		vm.waitBound(45 * time.Second)
	}
	for _, vm := range s.clients {
		vm.waitRenewal(settled, 45*time.Second)
	}
	c.to = time.Now()
	c.heldAfter = s.held()
	for _, m := range s.count(&c) {
		s.t.Errorf("%s: a renewal that reached a running agent was not answered: %s", name, m)
	}
	for _, v := range s.violations(&c, before, changed, mayDrop) {
		s.t.Errorf("%s: %s", name, v)
	}
	if c.heldAfter != len(s.clients) {
		s.t.Errorf("%s: %d of %d clients hold their pool's address after it", name, c.heldAfter, len(s.clients))
	}
	s.cases = append(s.cases, c)
	s.t.Logf("case %q: %d renewals sent, %d answered; %d sent to a running agent, %d of them answered; holding %d / %d; %d duplicates; %s %v",
		name, c.renewals, c.answered, c.reached, c.reachedAnswered, c.heldBefore, c.heldAfter, c.duplicates, c.measureWhat, c.measure)
}
