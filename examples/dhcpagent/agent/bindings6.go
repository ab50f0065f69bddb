package agent

import (
	"encoding/binary"
	"net/netip"
	"sync/atomic"
	"time"
)

// bindings6 is bindings for IPv6 addresses: when the agent last sent a
// REPLY that bound each address, to the second, one atomic word per slot,
// without a lock or an allocation. An IPv6 address does not fit a word
// beside the time, so the slot and a 32-bit tag come from a hash of the
// address: two bound addresses that share a slot replace each other (a
// DECLINE of the earlier one is then refused as too late), and a DECLINE
// of an address whose hash shares slot and tag with a bound one (one in
// 2^32) is measured from that one's binding.
type bindings6 struct {
	slots [bindingSlots]atomic.Uint64
}

// hash6 mixes the 128 bits of a (SplitMix64's finalizer over both halves).
func hash6(a netip.Addr) uint64 {
	b := a.As16()
	h := binary.BigEndian.Uint64(b[:8])*0x9e3779b97f4a7c15 ^ binary.BigEndian.Uint64(b[8:])
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

// record notes that addr was bound by a REPLY at now.
func (b *bindings6) record(addr netip.Addr, now time.Time) {
	h := hash6(addr)
	b.slots[h&(bindingSlots-1)].Store(h&^(1<<32-1) | uint64(uint32(now.Unix())))
}

// since reports how long before now, to the second, the last REPLY that
// bound addr was, if the agent remembers one.
func (b *bindings6) since(addr netip.Addr, now time.Time) (time.Duration, bool) {
	if b == nil {
		return 0, false
	}
	h := hash6(addr)
	v := b.slots[h&(bindingSlots-1)].Load()
	if v == 0 || v>>32 != h>>32 {
		return 0, false
	}
	elapsed := uint32(now.Unix()) - uint32(v)
	if elapsed > 1<<31 { // a binding after now: the clock went back
		return 0, false
	}
	return time.Duration(elapsed) * time.Second, true
}
