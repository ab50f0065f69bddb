// Package ipam allocates IP addresses to owners (VM NICs) from an IPv4 or
// IPv6 CIDR, within an optional start/end range, never handing out excluded
// or reserved addresses. Its memory follows what is allocated, never the size
// of the range, and a pool's snapshot restores exactly.
//
// A Spec describes a pool; New validates it and returns an empty Pool.
// Allocate hands out an address by the Spec's Strategy (the lowest free
// address, or the next one after the last handed out) and is idempotent per
// owner; AllocateAddr takes a given address; Release and ReleaseOwner free
// one. Stats counts exactly, even for a /0 (Count holds 128 bits). Check
// (and a Checker, for many addresses in order) says whether an address
// could ever be allocated, and why not.
//
// Snapshot and Restore persist a pool: Restore gives the same pool whatever
// the order of the snapshot's allocations, and never fails as a whole on a
// bad entry: it keeps what it can and lists the rest as Problems.
//
// The edge to what a controller stores is here too, so that no adapter
// translates by hand: SpecText is a Spec in a custom resource's strings
// (Parse names the bad field and index; Spec.Text goes back), ParseRange
// and ParseAddr read one value, FormatAllocated writes a pool as the
// status-map form (address to owner, or a marker) that ParseAllocated and
// RestoreAllocated read back, and Snapshot, Spec, Strategy, OwnerKind,
// Count and Stats have JSON forms a status can hold; AddressList (Cluster
// API's in-cluster IPAM provider's pool) parses to one Spec. A pool of
// MACOwners takes every spelling of a MAC as one owner; every pool refuses
// an owner that is not valid UTF-8. Every parser refuses an IPv4-mapped
// IPv6 address (::ffff:10.0.0.1) and says which IPv4 address to write.
//
// Errors wrap the package's sentinel errors (ErrExhausted, ErrInUse, ...),
// for errors.Is. An error about a field of a Spec or of its text forms is
// a *FieldError naming the field and its index (FieldErrors lists them).
// An error quotes each value it names as %q would, cut after 96 bytes
// with its length noted; a valid input builds no error text at all. No
// input makes the package panic. A Pool is
// not safe for concurrent use; callers serialize access to it. The package
// does no I/O, reads no clock and keeps no global state.
//
// How the tree keeps memory to what is allocated: tree.go.
package ipam
