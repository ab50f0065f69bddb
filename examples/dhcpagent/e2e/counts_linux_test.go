package e2e

import (
	"fmt"
	"strings"
	"time"
)

// caseCounts are what one fault case produced, from the clients' own
// links: every figure is counted from captured packets or read from the
// clients' kernels, none is computed from the case's plan.
type caseCounts struct {
	name     string
	from, to time.Time
	// renewals the clients sent (DHCPv4 REQUESTs with ciaddr, DHCPv6
	// RENEWs and REBINDs), those answered, and those of them sent while
	// an agent they could reach ran (each of these must be answered).
	renewals, answered, reached, reachedAnswered int
	// held counts the clients holding their pool's address, before and
	// after the case.
	heldBefore, heldAfter int
	// duplicates are replies beyond the first to one request.
	duplicates int
	// requests are all the client messages that ask for a reply.
	requests int
	// firstReply is a time the case measured (an agent's first reply
	// after its start, a client's rebinding with another agent); 0: none.
	measure     time.Duration
	measureWhat string
}

// count fills c's packet counts from every client's capture over
// [c.from, c.to).
func (s *system) count(c *caseCounts) (missed []string) {
	for _, vm := range s.clients {
		for _, x := range vm.wire.exchanges(c.from, c.to) {
			c.requests++
			if len(x.replies) > 1 {
				c.duplicates += len(x.replies) - 1
			}
			if !x.req.renewal {
				continue
			}
			c.renewals++
			answered := len(x.replies) > 0
			if answered {
				c.answered++
			}
			if s.reachable(x.req) {
				c.reached++
				if answered {
					c.reachedAnswered++
				} else {
					missed = append(missed, fmt.Sprintf("%s: %s %s xid %s to %s at %s", vm.name(), map[bool]string{true: "DHCPv6", false: "DHCPv4"}[x.req.v6],
						x.req.typ, x.req.xid, x.req.dst, x.req.at.Format("15:04:05.000")))
				}
			}
		}
	}
	return missed
}

// reachable reports whether a running agent was there to answer req: for
// a DHCPv4 renewal unicast to an address, the agent holding it; for a
// broadcast (rebinding) or a DHCPv6 multicast, any agent.
func (s *system) reachable(req packet) bool {
	for _, a := range s.agents {
		if !a.upAt(req.at) {
			continue
		}
		if req.v6 || req.dst.Is4() && req.dst.As4() == [4]byte{255, 255, 255, 255} || req.dst == a.addr4 {
			return true
		}
	}
	return false
}

// table is the counts of every case, as the closing note and
// docs/performance.md show them.
func table(cases []caseCounts) string {
	var b strings.Builder
	b.WriteString("| case | length | renewals sent | answered | sent to a running agent | of them answered | holding their address before / after | duplicate replies | measured |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range cases {
		m := ""
		if c.measureWhat != "" && c.measure == 0 {
			m = c.measureWhat
		} else if c.measureWhat != "" {
			m = fmt.Sprintf("%s: %v", c.measureWhat, c.measure.Round(time.Millisecond))
		}
		fmt.Fprintf(&b, "| %s | %v | %d | %d | %d | %d | %d / %d | %d | %s |\n", c.name, c.to.Sub(c.from).Round(time.Second),
			c.renewals, c.answered, c.reached, c.reachedAnswered, c.heldBefore, c.heldAfter, c.duplicates, m)
	}
	return b.String()
}
