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
// An error or Problem quotes the values it names as ipam's errors do,
// cut after 96 bytes with the length noted.
//
// A Store is immutable: agents publish each new table through an
// atomic.Pointer, so no reader ever sees a half-applied change. A nil
// *Store is an empty table. Diff compares two tables by MAC: a MAC that
// moves or whose options change is an Update, an address that passes to
// another MAC is a Remove and an Add, and Plan.Apply(old) gives exactly the
// new table.
//
// A Store serves one pool, of one family; one [Options] type describes
// both, the pool's family deciding which fields apply. An IPv6 pool's
// table is the IPv4 one, a lease kept as a MAC and the address's offset
// from the pool's prefix; what a lease costs: [Store].
package leasestore
