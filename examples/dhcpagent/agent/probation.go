package agent

import (
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultProbation is how long a declined address is not offered again,
// unless the agent is told otherwise.
const DefaultProbation = 10 * time.Minute

// Probation holds the addresses that clients declined (RFC 2131 section
// 4.3.3: the server MUST mark them as not available) and until when. It
// reads no clock: every method takes now, so tests inject it.
//
// The zero Probation holds nothing and has a period of zero (a decline
// holds nothing); make one with NewProbation. A Probation is safe for
// concurrent use.
type Probation struct {
	period time.Duration

	mu    sync.Mutex
	until map[netip.Addr]time.Time
	size  atomic.Int64 // len(until), so that the common case, nothing on probation, takes no lock
}

// NewProbation returns an empty Probation whose declines hold an address
// for period.
func NewProbation(period time.Duration) *Probation {
	return &Probation{period: period}
}

// Period is how long a decline holds an address.
func (p *Probation) Period() time.Duration { return p.period }

// Decline puts addr on probation from now until now plus the period, or
// extends it, and returns the end. A period of zero or less holds nothing
// and returns now.
func (p *Probation) Decline(addr netip.Addr, now time.Time) time.Time {
	if p.period <= 0 {
		return now
	}
	until := now.Add(p.period)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.until == nil {
		p.until = make(map[netip.Addr]time.Time)
	}
	p.until[addr] = until
	p.expire(now)
	p.size.Store(int64(len(p.until)))
	return until
}

// Holds reports whether addr is on probation at now, and until when. The
// end itself is outside probation.
func (p *Probation) Holds(addr netip.Addr, now time.Time) (until time.Time, ok bool) {
	if p.size.Load() == 0 {
		return time.Time{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	until, ok = p.until[addr]
	if !ok || !now.Before(until) {
		return time.Time{}, false
	}
	return until, true
}

// Len is the number of addresses on probation at now; it forgets those
// whose probation has ended.
func (p *Probation) Len(now time.Time) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expire(now)
	p.size.Store(int64(len(p.until)))
	return len(p.until)
}

// expire forgets the addresses whose probation ended at or before now, so
// that the map holds only what is on probation. Called under mu.
func (p *Probation) expire(now time.Time) {
	for a, until := range p.until {
		if !now.Before(until) {
			delete(p.until, a)
		}
	}
}
