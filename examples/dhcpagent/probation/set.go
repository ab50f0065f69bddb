package probation

import (
	"cmp"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vmnetkit/vmnetkit/leasestore"
)

// DefaultPeriod is how long a declined address is not offered again,
// unless the agent is told otherwise.
const DefaultPeriod = 10 * time.Minute

// Set holds the addresses that clients declined (RFC 2131 section
// 4.3.3: the server MUST mark them as not available), until when, and
// which client declined each. It reads no clock: every method takes now,
// so tests inject it.
//
// Every method costs the same whatever the number of addresses on
// probation (amortized; a map and a queue ordered by the end of each
// probation, which expiry pops from its front), as long as now never goes
// back from one call to the next, as with time.Now. A decline at an
// earlier now than an earlier decline's is still exact, at the cost of
// an insertion into the queue.
//
// The zero Set holds nothing and has a period of zero (a decline
// holds nothing); make one with NewSet. A Set is safe for
// concurrent use.
type Set struct {
	period time.Duration

	mu sync.Mutex
	// Times are kept as offsets from epoch, the now of the first decline
	// (monotonic when now is time.Now), and addresses as 16 bytes: small
	// entries without pointers, which a map of 65,000 compares and hashes
	// fast.
	epoch time.Time
	held  map[[16]byte]hold
	// ends are the probations in the order they end, from ends[head]: one
	// record per Decline that held an address. A record whose address was
	// declined again since, or lifted, no longer matches held and is
	// skipped when it reaches the front; compact drops such records when
	// they outnumber the live ones, so that the queue stays within twice
	// the addresses held.
	ends []end
	head int
	size atomic.Int64 // len(held), so that the common case, nothing on probation, takes no lock
}

// hold is one address on probation: until when (an offset from epoch),
// and who declined it.
type hold struct {
	until time.Duration
	mac   leasestore.MAC
}

// end is the record of one Decline in Set.ends.
type end struct {
	addr  [16]byte
	until time.Duration
}

// NewSet returns an empty Set whose declines hold an address
// for period.
func NewSet(period time.Duration) *Set {
	return &Set{period: period}
}

// Period is how long a decline holds an address.
func (p *Set) Period() time.Duration { return p.period }

// Decline puts addr on probation, declined by mac, from now until now plus
// the period, or extends it (the last decliner is the one it records), and
// returns the end. A period of zero or less holds nothing and returns now.
func (p *Set) Decline(mac leasestore.MAC, addr netip.Addr, now time.Time) time.Time {
	if p.period <= 0 {
		return now
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held == nil {
		p.held = make(map[[16]byte]hold)
		p.epoch = now
	}
	at := p.offset(now)
	until := at + p.period
	key := addr.As16()
	old, had := p.held[key]
	p.held[key] = hold{until: until, mac: mac}
	if !had || old.until != until { // one record per (address, end)
		p.push(end{key, until})
	}
	p.expire(at)
	p.size.Store(int64(len(p.held)))
	return now.Add(p.period)
}

// Empty reports, without taking the lock, whether no address was held at
// the last change: the common case, nothing on probation, costs a caller
// one atomic load. An expired probation still counts until a method that
// takes now forgets it.
func (p *Set) Empty() bool { return p.size.Load() == 0 }

// Holds reports whether addr is on probation at now, and until when. The
// end itself is outside probation.
func (p *Set) Holds(addr netip.Addr, now time.Time) (until time.Time, ok bool) {
	h, ok := p.hold(addr, now)
	if !ok {
		return time.Time{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.epoch.Add(h.until), true
}

// DeclinedBy reports whether addr is on probation at now, and the MAC of
// the client whose decline holds it.
func (p *Set) DeclinedBy(addr netip.Addr, now time.Time) (leasestore.MAC, bool) {
	h, ok := p.hold(addr, now)
	return h.mac, ok
}

func (p *Set) hold(addr netip.Addr, now time.Time) (hold, bool) {
	if p.size.Load() == 0 {
		return hold{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	h, ok := p.held[addr.As16()]
	if !ok || p.offset(now) >= h.until {
		return hold{}, false
	}
	return h, true
}

// Lift ends the probation of addr at now if mac's decline holds it, and
// reports whether it did. The agent lifts it when mac asks to keep the
// address it declined, which shows that the decline was not its own (see
// package agent's documentation).
func (p *Set) Lift(mac leasestore.MAC, addr netip.Addr, now time.Time) bool {
	if p.size.Load() == 0 {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	key, at := addr.As16(), p.offset(now)
	h, ok := p.held[key]
	if !ok || h.mac != mac || at >= h.until {
		return false
	}
	delete(p.held, key)
	p.expire(at)
	p.size.Store(int64(len(p.held)))
	return true
}

// Len is the number of addresses on probation at now; it forgets those
// whose probation has ended.
func (p *Set) Len(now time.Time) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expire(p.offset(now))
	p.size.Store(int64(len(p.held)))
	return len(p.held)
}

// offset is now as an offset from epoch (saturated, as time.Sub is, some
// 292 years away). Called under mu.
func (p *Set) offset(now time.Time) time.Duration { return now.Sub(p.epoch) }

// push adds e to ends in the order of their ends: at the back, unless now
// went back since an earlier decline. Called under mu.
func (p *Set) push(e end) {
	if n := len(p.ends); n == p.head || e.until >= p.ends[n-1].until {
		p.ends = append(p.ends, e)
	} else {
		i, _ := slices.BinarySearchFunc(p.ends[p.head:], e.until, func(x end, t time.Duration) int { return cmp.Compare(x.until, t) })
		p.ends = slices.Insert(p.ends, p.head+i, e)
	}
	if live := len(p.held); len(p.ends)-p.head > 2*live+16 {
		p.compact()
	}
}

// expire forgets the addresses whose probation ended at or before at (an
// offset from epoch), from the front of ends, so that the map holds only
// what is on probation. Called under mu.
func (p *Set) expire(at time.Duration) {
	for p.head < len(p.ends) {
		e := p.ends[p.head]
		if at < e.until {
			break
		}
		if h, ok := p.held[e.addr]; ok && h.until == e.until {
			delete(p.held, e.addr)
		}
		p.ends[p.head] = end{}
		p.head++
	}
	if p.head == len(p.ends) {
		p.ends, p.head = p.ends[:0], 0
	} else if p.head > len(p.ends)/2 && p.head > 16 {
		p.ends, p.head = append(p.ends[:0], p.ends[p.head:]...), 0
	}
}

// compact drops the records that no longer match an address held, in
// order. Called under mu.
func (p *Set) compact() {
	kept := p.ends[:0]
	for _, e := range p.ends[p.head:] {
		if h, ok := p.held[e.addr]; ok && h.until == e.until {
			kept = append(kept, e)
		}
	}
	clear(p.ends[len(kept):])
	p.ends, p.head = kept, 0
}
