package probation

import (
	"net/netip"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/leasestore"
)

// Fixtures: two addresses and a client.
var (
	addrA = netip.MustParseAddr("10.77.0.10")
	addrB = netip.MustParseAddr("10.77.0.11")
	macA  = "52:54:00:aa:00:01"
	macB  = "52:54:00:aa:00:02"
)

// TestProbation checks when a declined address comes out of probation,
// with an injected now: held up to, not at, the end of the period.
func TestProbation(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b := addrA, addrB
	type check struct {
		addr netip.Addr
		at   time.Duration // after t0
		held bool
	}
	tests := []struct {
		name     string
		period   time.Duration
		declines []struct {
			addr netip.Addr
			at   time.Duration
		}
		checks []check
	}{
		{
			name:   "held for the period, free at its end",
			period: 10 * time.Minute,
			declines: []struct {
				addr netip.Addr
				at   time.Duration
			}{{a, 0}},
			checks: []check{{a, 0, true}, {a, 10*time.Minute - time.Nanosecond, true}, {a, 10 * time.Minute, false}, {b, 0, false}},
		},
		{
			name:   "a second decline extends the probation",
			period: time.Minute,
			declines: []struct {
				addr netip.Addr
				at   time.Duration
			}{{a, 0}, {a, 50 * time.Second}},
			checks: []check{{a, 70 * time.Second, true}, {a, 110 * time.Second, false}},
		},
		{
			name:   "addresses are held apart",
			period: time.Minute,
			declines: []struct {
				addr netip.Addr
				at   time.Duration
			}{{a, 0}, {b, 30 * time.Second}},
			checks: []check{{a, 45 * time.Second, true}, {b, 45 * time.Second, true}, {a, 60 * time.Second, false}, {b, 60 * time.Second, true}, {b, 90 * time.Second, false}},
		},
		{
			name:   "zero period holds nothing",
			period: 0,
			declines: []struct {
				addr netip.Addr
				at   time.Duration
			}{{a, 0}},
			checks: []check{{a, 0, false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewSet(tt.period)
			for _, d := range tt.declines {
				if got, want := p.Decline(leasestore.MustParseMAC(macA), d.addr, t0.Add(d.at)), t0.Add(d.at+tt.period); !got.Equal(want) {
					t.Errorf("Decline(%s) at +%v = %v, want %v", d.addr, d.at, got, want)
				}
			}
			for _, c := range tt.checks {
				if _, held := p.Holds(c.addr, t0.Add(c.at)); held != c.held {
					t.Errorf("Holds(%s) at +%v = %v, want %v", c.addr, c.at, held, c.held)
				}
			}
		})
	}
}

// TestProbationLenForgets checks that Len counts what is held at now and
// forgets the rest, so the set does not grow with every decline ever made.
func TestProbationLenForgets(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := NewSet(time.Minute)
	p.Decline(leasestore.MustParseMAC(macA), addrA, t0)
	if got := p.Len(t0); got != 1 {
		t.Errorf("Len after one decline = %d, want 1", got)
	}
	p.Decline(leasestore.MustParseMAC(macB), addrB, t0.Add(30*time.Second))
	for _, c := range []struct {
		at   time.Duration
		want int
	}{{30 * time.Second, 2}, {time.Minute, 1}, {90 * time.Second, 0}, {0, 0}} {
		if got := p.Len(t0.Add(c.at)); got != c.want {
			t.Errorf("Len at +%v = %d, want %d", c.at, got, c.want)
		}
	}
}
