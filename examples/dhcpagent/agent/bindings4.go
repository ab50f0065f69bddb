package agent

import (
	"net/netip"
	"sync/atomic"
	"time"
)

// DefaultDeclineWindow is how long after the agent ACKs a REQUEST that
// binds an address (SELECTING or INIT-REBOOT: ciaddr zero) it accepts a
// DECLINE of that address, unless told otherwise (WithDeclineWindow). A
// client probes the address it was just ACKed (busybox udhcpc -a: one
// ARP request, up to 2 s; dhcpcd: RFC 5227's probes, up to about 9 s)
// and declines at once when another host answers; 60 s leaves room for
// slow clients and networks.
const DefaultDeclineWindow = 60 * time.Second

// bindingSlots is the number of addresses bindings remembers: every
// address of a pool of up to 65,536 addresses has a slot of its own.
const bindingSlots = 1 << 16

// bindings remembers when the agent last ACKed a REQUEST that bound each
// address, to the second: one atomic word per slot, the IPv4 address in
// the high half and the Unix time in seconds in the low half, so that
// recording an ACK is one atomic store, without a lock or an allocation.
// The slot is the address's low 16 bits: addresses 65,536 apart share
// one, and the later ACK replaces the earlier (a DECLINE of the earlier
// address is then refused as too late), which only pools larger than a
// /16 can see.
type bindings struct {
	slots [bindingSlots]atomic.Uint64
}

// record notes that addr was bound by an ACK at now.
func (b *bindings) record(addr netip.Addr, now time.Time) {
	if !addr.Is4() {
		return
	}
	a4 := addr.As4()
	a := uint64(a4[0])<<24 | uint64(a4[1])<<16 | uint64(a4[2])<<8 | uint64(a4[3])
	b.slots[a&(bindingSlots-1)].Store(a<<32 | uint64(uint32(now.Unix())))
}

// since reports how long before now, to the second, the last ACK that
// bound addr was, if the agent remembers one.
func (b *bindings) since(addr netip.Addr, now time.Time) (time.Duration, bool) {
	if b == nil || !addr.Is4() {
		return 0, false
	}
	a4 := addr.As4()
	a := uint64(a4[0])<<24 | uint64(a4[1])<<16 | uint64(a4[2])<<8 | uint64(a4[3])
	v := b.slots[a&(bindingSlots-1)].Load()
	if v>>32 != a || v == 0 {
		return 0, false
	}
	elapsed := uint32(now.Unix()) - uint32(v) // modulo 2^32: right across the wrap in 2106
	if elapsed > 1<<31 {                      // an ACK after now: the clock went back
		return 0, false
	}
	return time.Duration(elapsed) * time.Second, true
}
