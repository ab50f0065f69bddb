// Package dhcp6 is the agent's DHCPv6 decision, and nothing else: [Decide]
// turns one decoded client message (package dhcp6wire) and a [Table] (the
// lease table, the server's DUID, the addresses on probation, the time)
// into the server's reply, or into the reason it stays silent. It does no
// I/O, keeps no state, reads no clock and counts nothing: time is a field
// of the Table, and what the server must remember (a lease bound,
// released, declined, a probation lifted) is returned in a [Decision].
//
// What a caller relies on:
//
//   - Which lease: the pool records MACs and a client names itself by a
//     DUID, so the decision derives the client's candidate MACs
//     ([ClientMACs]: the DUID's, the frame's, the EUI-64 link-local's, a
//     listed relay's) and serves the lease of the first that has one.
//   - The answers to each message type, the messages dropped and why (an
//     Err value), and the DECLINE rule: [Decide], RFC 8415 sections 16
//     and 18.3.
//   - A message is decided only from a source a reply may go to
//     ([Replyable]) and, relayed, only from a relay Table.Relays lists; a
//     reply larger than [ReplyLimit] of its request is the server's to
//     refuse.
//   - Decide builds its reply in a reused [Reply]: with dhcp6wire's Decode
//     into a reused Packet and Reply.Append into a reused buffer, a
//     SOLICIT to ADVERTISE or REQUEST to REPLY exchange allocates nothing.
//
// Why the candidate order and the DECLINE rule: docs/dhcpagent-design.md.
package dhcp6
