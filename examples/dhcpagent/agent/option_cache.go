package agent

import (
	"net/netip"
	"sync/atomic"

	"github.com/vmnetkit/vmnetkit/leasestore"
)

// optionCache keeps the encoded options (leaseParts) of the one
// *leasestore.Options and prefix that a table's leases share
// (leasestore.Build gives every lease the same *Options), so that a reply
// copies them instead of encoding them again: encoding the lists, the
// search domains above all, was most of a reply's allocations. It is
// keyed by the pointer, which is sound because a Store and its Options
// are immutable. A miss (an INFORM's options, or a table whose leases do
// not share one) encodes and replaces the entry. The zero optionCache is
// empty; a nil *optionCache encodes every time.
type optionCache struct {
	last atomic.Pointer[encodedOptions]
}

type encodedOptions struct {
	opts                *leasestore.Options
	prefix              netip.Prefix
	mandatory, optional []part
	size                int // bytes of all the parts' data
}

// encoded is leaseParts(lease), from the cache when it holds them: parts
// to be read, never changed, and shared with other replies; own copies
// their data before a reply carries it.
func (c *optionCache) encoded(lease leasestore.Lease) (mandatory, optional []part, size int) {
	if c == nil {
		mandatory, optional = leaseParts(lease)
		return mandatory, optional, 0 // each already owns its data
	}
	e := c.last.Load()
	if e == nil || e.opts != lease.Options || e.prefix != lease.Prefix {
		e = &encodedOptions{opts: lease.Options, prefix: lease.Prefix}
		e.mandatory, e.optional = leaseParts(lease)
		for _, p := range e.mandatory {
			e.size += len(p.data)
		}
		for _, p := range e.optional {
			e.size += len(p.data)
		}
		c.last.Store(e)
	}
	return e.mandatory, e.optional, e.size
}

// own appends src to dst with each part's data copied to the end of buf,
// so that a reply owns what it carries and a caller that changes the
// reply's options changes nothing the cache holds. With a nil buf
// (uncached parts) it appends src as it is.
func own(dst []part, buf *[]byte, src ...part) []part {
	if *buf == nil {
		return append(dst, src...)
	}
	for _, p := range src {
		start := len(*buf)
		*buf = append(*buf, p.data...)
		p.data = (*buf)[start:len(*buf):len(*buf)]
		dst = append(dst, p)
	}
	return dst
}

// ownBuffer is the buffer own copies size bytes of cached parts into; nil
// when size is zero, for parts that need no copy.
func ownBuffer(size int) *[]byte {
	var b []byte
	if size > 0 {
		b = make([]byte, 0, size)
	}
	return &b
}
