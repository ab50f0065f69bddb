// Package dhcp6 is the agent's DHCPv6 decision, and nothing else: [Decide]
// turns one decoded client message (package dhcp6wire) and a [Table] (the
// lease table, the server's DUID, the addresses on probation, the time)
// into the server's reply, or into the reason it stays silent. It does no
// I/O, keeps no state, reads no clock and counts nothing: time is a field
// of the Table, and what the server must remember (a lease bound,
// released, declined, a probation lifted) is returned in a [Decision].
//
// # Which lease: the client's candidate MACs
//
// The pool records MACs, a DHCPv6 client names itself by a DUID. The
// decision therefore derives the MACs the client may have, in this order
// ([ClientMACs]), and serves the lease of the FIRST that has one:
//
//  1. the MAC inside the client's DUID-LLT or DUID-LL of hardware type 1
//     (dhclient, dhcpcd and perfdhcp send a DUID-LLT of the interface's
//     MAC): the client's own statement;
//  2. for a message on the server's own link, the Ethernet source address
//     of the frame, when the server read it (a packet socket);
//  3. for such a message, the MAC of the modified EUI-64 interface
//     identifier of its link-local source address, for a universally AND a
//     locally administered MAC: the universal/local bit is inverted back
//     whatever it is, so a KubeVirt NIC with a 02:… MAC finds its lease
//     (Kea 2.2 refuses to derive a locally administered MAC and serves a
//     pool address instead, the bug this must not have);
//  4. for a relayed message, the client link-layer address option of the
//     relay closest to the client (RFC 6939), then the EUI-64 MAC of that
//     relay's link-local peer address. The frame's MAC and the datagram's
//     source are the relay's, never the client's, and are not used. A
//     relayed message is decided at all only when it comes from a relay
//     Table.Relays lists: these options name any MAC the sender likes.
//
// Why the first with a lease rather than the first at all: a DUID-LLT is
// one per host, made from whichever NIC the host saw first, so a VM with
// two NICs sends the same DUID on both; the second NIC's lease is then
// found from its frame or link-local address, since the DUID's MAC has a
// lease on the other NIC's pool only, or none in this one. And a load
// generator such as perfdhcp, which sends one DUID-LLT per simulated
// client from one interface, gets each client's lease from its DUID,
// before the frame's MAC (the generator's own) is tried. A DUID-UUID or
// DUID-EN client (no MAC inside) is served by its frame or link-local
// address. When no candidate has a lease the client gets no address
// (NoAddrsAvail).
//
// # Answers (RFC 8415 section 18.3)
//
//   - SOLICIT: an ADVERTISE of the lease's address at the pool's lifetimes
//     (leasestore.Options.Lifetimes, DefaultValidLifetime when unset) in
//     the IA_NA that names it, or the first; a REPLY that commits it
//     (Decision.Bound) when the client sent Rapid Commit and
//     Table.RapidCommit allows it. With no lease, its address on
//     probation, or no IA_NA asked: an ADVERTISE holding only the status
//     NoAddrsAvail (with the server and client identifiers), as section
//     18.3.9 asks of a server that will assign no address. RFC 8415 lets a
//     server stay silent instead; answering tells the client at once,
//     and costs one datagram per solicitation that would otherwise be
//     retransmitted anyway.
//   - REQUEST, RENEW, REBIND: a REPLY with the binding. An address the IA
//     names that is not the lease's (the pool moved the NIC's address) is
//     returned beside it at lifetimes 0, so the client drops it. Without a
//     lease: REQUEST gets NoAddrsAvail in each IA, RENEW NoBinding, and
//     REBIND, since the server is authoritative for its prefix, NotOnLink
//     for an IA that names an address off Table.Prefix and NoBinding for
//     one that names only addresses on it, each address at lifetimes 0; a
//     REBIND that leaves nothing to say gets no reply.
//   - CONFIRM: Success when every address it names is on Table.Prefix,
//     NotOnLink otherwise; no reply when it names none.
//   - RELEASE and DECLINE: Success; an IA that does not name the client's
//     lease address comes back with NoBinding. Decision.Released or
//     Declined tells the server the address.
//   - INFORMATION-REQUEST: the requested options only, to any client,
//     with or without a lease.
//
// Each ADVERTISE and REPLY echoes the transaction id and the CLIENTID,
// carries the server's DUID, each IA its IAID with T1 and T2 at 0.5 and
// 0.8 of the preferred lifetime (both infinite with it), and the DNS
// servers (23) and search list (24) when the client's ORO asks for them
// and the pool sets them. A relayed message is answered inside RELAY-REPL
// headers that mirror the RELAY-FORW ones, each interface-id echoed.
//
// # Dropped messages (RFC 8415 section 16)
//
// No reply, and an Err value that says why, for: a message type a server
// does not answer; no CLIENTID (except INFORMATION-REQUEST); a SERVERID
// in a SOLICIT, CONFIRM or REBIND; none in a REQUEST, RENEW, RELEASE or
// DECLINE; another server's SERVERID; an INFORMATION-REQUEST with an
// IA_NA. The server never sends the Server Unicast option, so a REQUEST,
// RENEW, RELEASE or DECLINE that reached it by unicast (Arrival.Unicast,
// for a message that was not relayed) gets a REPLY with only UseMulticast,
// and a SOLICIT, CONFIRM, REBIND or INFORMATION-REQUEST by unicast is
// dropped (as Kea does): those are meant for all servers.
//
// # Where a message may come from, and how large a reply may be
//
// A reply goes back to the datagram's source, so a message whose source
// cannot take one is dropped (ErrReplySource): a multicast source (a
// SOLICIT "from" ff02::1 would have its ADVERTISE sent to every node of
// the link), the unspecified or a loopback address, an IPv4 one. Only
// unicast link-local and global (unique local included) sources are
// answered ([Replyable]). A RELAY-FORW from an address Table.Relays does
// not list is dropped (ErrUntrustedRelay), so that its options never
// choose a lease.
//
// The server also refuses a reply larger than [ReplyLimit] of its request
// (MaxReplyFactor times it, at most MaxReplySize bytes): a host that sends
// 1,000 IA_NAs in 16 KB must not get 48 KB sent where it says. The
// decision builds the reply; the server, which has both sizes, applies the
// limit.
//
// # DECLINE and probation
//
// The DHCPv4 agent accepts a DECLINE only as far as a real client's
// behaviour explains it (package agent, "DECLINE: what a bystander cannot
// abuse"), and the same ideas apply here, split between this decision and
// the server. The decision accepts a DECLINE only of the address of the
// lease the client's identity selects (the same candidate MAC order as
// every other message) and only when it carries this server's DUID; it
// reports it in Decision.Declined with the MAC in whose name the address
// goes on probation. Whether the DECLINE came soon enough after the REPLY
// that bound the address (Decision.Bound: a client checks an address for
// duplicates right after it is assigned, RFC 8415 section 18.2.10.1) is
// the server's rule, since only the server remembers when it bound what.
// While the address is on probation the client's SOLICIT and a REQUEST
// that does not name it get NoAddrsAvail; a REQUEST, RENEW or REBIND from
// the decliner that names it shows the decline was not its own (a client
// never asks to keep an address it declined), so it is bound again and
// Decision.Lifted tells the server to lift the probation.
//
// # Allocation
//
// Decide builds its reply in a reused [Reply]: with dhcp6wire's Decode
// into a reused Packet and Reply.Append into a reused buffer, a SOLICIT
// to ADVERTISE or REQUEST to REPLY exchange allocates nothing.
package dhcp6
