// Package reclaim frees an address lock whose IPAddress never came,
// without ever letting two claims be bound to one address.
//
// capiipam locks an address (a VMNetIPAddressLock naming its holder, the
// IPAddress to be) before it creates the IPAddress. A process stopped
// between the two, whose claim is then deleted, leaves a lock that holds
// the address for nobody. Such a lock looks exactly like the lock of a
// create still under way, so it is freed by a handshake:
//
//   - A Reclaimer deletes a lock only after it has seen it without its
//     holder for OrphanAge by its own monotonic clock, then marked it
//     (a write), then read the holder from the API server and found it
//     still missing; the delete is conditional on the mark's
//     resourceVersion, so any write to the lock after the mark stops it.
//   - A creator whose lock-then-IPAddress took SlowCreate or more
//     confirms its lock before it binds the claim (Confirm): the lock
//     gone or another's means the address is lost (delete the IPAddress,
//     pick again); a mark on it is cleared with a write conditional on
//     what was read, which makes the reclaimer's delete fail.
//   - A faster create needs no extra request: its IPAddress existed
//     before any reclaimer could have marked the lock, so the
//     reclaimer's read of the holder finds it.
//
// "Bound" is what the contract reads: a claim's status.addressRef. An
// IPAddress created by a creator that then loses its lock exists, unbound,
// until that creator deletes it. The rule holds as long as no process's
// clock runs more than twice as fast as another's (SlowCreate is half of
// OrphanAge). Store is all the package needs of the API server; it never
// reads a cache.
package reclaim
