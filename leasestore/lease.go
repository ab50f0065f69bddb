package leasestore

import "net/netip"

// Lease is one entry of a Store: the address a MAC is served, the pool's
// prefix (its length is the subnet mask), and the pool-wide options. All
// leases of a Store share one *Options, which must not be modified.
type Lease struct {
	MAC     MAC
	Addr    netip.Addr
	Prefix  netip.Prefix // the pool's prefix, masked: 10.0.0.0/24
	Options *Options
}

// String returns the lease as its MAC and its address with the prefix
// length, "52:54:00:ab:cd:ef 10.0.0.5/24", leaving out the options.
func (l Lease) String() string {
	return l.MAC.String() + " " + netip.PrefixFrom(l.Addr, l.Prefix.Bits()).String()
}
