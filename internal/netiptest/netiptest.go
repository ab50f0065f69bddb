// Package netiptest spells the address lists of vmnetkit's tests (the
// core's and the examples') as strings, and counts a range's addresses.
// Only tests import it: it panics on input it cannot parse, as
// netip.MustParseAddr does.
package netiptest

import (
	"math/big"
	"net/netip"
	"strings"

	"go4.org/netipx"
)

// Addrs parses each string as an address; "" stands for the zero Addr
// (what an unset field holds). It panics on any other string that is not
// an address.
func Addrs(ss ...string) []netip.Addr {
	out := make([]netip.Addr, len(ss))
	for i, s := range ss {
		if s != "" {
			out[i] = netip.MustParseAddr(s)
		}
	}
	return out
}

// Prefixes parses each string as a prefix, and panics on one that is not.
func Prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// RangeSize is how many addresses r holds (2^128 for all of ::/0, hence
// a big.Int). The invalid range holds none.
func RangeSize(r netipx.IPRange) *big.Int {
	if !r.IsValid() {
		return new(big.Int)
	}
	from, to := r.From().As16(), r.To().As16()
	n := new(big.Int).Sub(new(big.Int).SetBytes(to[:]), new(big.Int).SetBytes(from[:]))
	return n.Add(n, big.NewInt(1))
}

// SplitList splits a comma-separated list, as fuzz targets spell one in
// a string; "" is the empty list.
func SplitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
