// Package leasestore rebuilds a DHCP agent's lease table from an ipam pool
// snapshot and plans the adds, updates and removes between two tables.
//
// Build is a pure, total and deterministic function of a snapshot and the
// pool-wide Options: it does no I/O and never resolves a name (Options hold
// addresses only), one bad entry never aborts it, and the same snapshot in
// any order gives the same Store and the same sorted list of Problems:
//
//   - an owner that parses as a MAC in any common spelling (ParseMAC) gets a
//     lease of its address, so a lookup by the MAC a packet carries finds it;
//   - an owner that is not a MAC, or an address the pool could never hand
//     out (outside its range, excluded, reserved: ipam.Pool.Check), is left
//     out and reported;
//   - an address or a MAC given twice is resolved as ipam.Restore resolves
//     it: in (address, MAC) order, a MAC keeps its lowest address and an
//     address goes to the first MAC that does not keep a lower one; the
//     others are reported, naming who keeps what;
//   - an invalid pool-wide option is dropped from the Store's copy of the
//     options and reported; the leases are still served.
//
// An error or Problem quotes the values it names (an owner, a MAC's text,
// a domain name) as ipam's errors do, cut after 96 bytes with the length
// noted, so a huge input gives an error of a few hundred bytes.
//
// A Store is immutable: agents publish each new table through an
// atomic.Pointer, so no reader ever sees a half-applied change. A nil
// *Store is an empty table. Diff compares two tables by MAC: a MAC that
// moves or whose options change is an Update, an address that passes to
// another MAC is a Remove and an Add, and Plan.Apply(old) gives exactly the
// new table.
//
// # DHCPv4 and DHCPv6 options
//
// A Store serves one pool, of one family, and one Options type describes
// both: the family of the pool's prefix decides which fields apply. DNS,
// DomainSearch and LeaseTime apply to both (DHCPv4 options 6, 119 and 51;
// DHCPv6 options 23 and 24, and the valid lifetime). Router, NTP and
// DomainName apply to IPv4 pools only: DHCPv6 has no router option (IPv6
// routers send Router Advertisements), no domain name option (clients
// take the search list) and its NTP option is not served. PreferredLifetime
// and ValidLifetime apply to IPv6 pools only; Options.Lifetimes gives the
// two lifetimes a DHCPv6 server puts in an IA address, with LeaseTime as
// the valid lifetime when ValidLifetime is not set, and Infinity (the
// 0xffffffff seconds of RFC 8415) as the explicit way to ask for an
// address that never expires. A field set for the other family is an
// invalid option like any other: dropped from the Store's copy and
// reported as a pool-wide Problem wrapping ErrInvalidOptions, so an
// operator who writes a router into an IPv6 pool learns that no client
// will ever receive it. ServerIP is the DHCPv4 server identifier; in an
// IPv6 pool it may hold the server's IPv6 address, which DHCPv6 does not
// use as an identifier (a DHCPv6 server is known by its DUID).
//
// An IPv6 pool's table is the IPv4 one: a lease is a MAC and an address,
// the address kept as its offset from the pool's prefix, so a /64 with
// 100,000 leases under one vendor prefix takes the same 16 bytes a lease
// as an IPv4 pool (BenchmarkFamilies measures both, TestIPv6MemoryPerLease
// holds the IPv6 table within 1.5 times the IPv4 one).
//
// A Store keeps each lease twice, sorted by address and by MAC, and one
// shared Options; Lease values are made on lookup. When the leases' MACs
// and their addresses' offsets in the pool fit in 64 bits together (MACs
// under one vendor prefix and up to 2^40 addresses, or any MACs within
// 2^16 addresses) a lease takes 16 bytes, otherwise 44.
package leasestore
