package dhcp4wire

import (
	"net/netip"
	"sync/atomic"

	"github.com/vmnetkit/vmnetkit/leasestore"
)

// OptionCache keeps the encoded options (see [OptionCache.Parts]) of the one
// *leasestore.Options and prefix that a table's leases share
// (leasestore.Build gives every lease the same *Options), so that a reply
// copies them instead of encoding them again: encoding the lists, the
// search domains above all, was most of a reply's allocations. It is
// keyed by the pointer, which is sound because a Store and its Options
// are immutable. A miss (an INFORM's options, or a table whose leases do
// not share one) encodes and replaces the entry. The zero OptionCache is
// empty; a nil *OptionCache encodes every time.
type OptionCache struct {
	last atomic.Pointer[encodedOptions]
}

type encodedOptions struct {
	opts                *leasestore.Options
	prefix              netip.Prefix
	mandatory, optional []Part
	size                int // bytes of all the parts' data
}

// Parts are the options of lease, as [LeaseOptions] lists them, in the
// order in which a reply keeps them (see [Fit]): the mandatory ones, 54
// server identifier, 51 lease time, 58 and 59 renewal and rebinding times,
// 1 subnet mask and 3 router; then the optional ones, 6 name servers, 15
// domain name, 42 NTP servers and 119 domain search, of which the lists
// may be cut short; and size, the bytes of all their data. They come from
// the cache when it holds them: parts to be read, never changed, and
// shared with other replies; [Scratch.Own] copies their data before a
// reply carries it.
func (c *OptionCache) Parts(lease leasestore.Lease) (mandatory, optional []Part, size int) {
	if c == nil {
		e := encode(lease)
		return e.mandatory, e.optional, e.size
	}
	e := c.last.Load()
	if e == nil || e.opts != lease.Options || e.prefix != lease.Prefix {
		e = encode(lease)
		c.last.Store(e)
	}
	return e.mandatory, e.optional, e.size
}

// encode is a new cache entry for lease's options.
func encode(lease leasestore.Lease) *encodedOptions {
	e := &encodedOptions{opts: lease.Options, prefix: lease.Prefix}
	e.mandatory, e.optional = leaseParts(lease)
	for _, p := range e.mandatory {
		e.size += len(p.Data)
	}
	for _, p := range e.optional {
		e.size += len(p.Data)
	}
	return e
}
