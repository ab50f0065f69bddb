// Package agent is a DHCPv4 agent that serves the lease table of one
// vmnetkit address pool.
//
// The pool arrives as JSON, the IPPool object as the API server returns it
// (see [Pool]). Each load converts it into an [ipam.Spec] and its allocations,
// builds an immutable [leasestore.Store], logs the plan between the old and the
// new table and the problems found, and swaps the table in with one atomic
// pointer store. Requests read the pointer once, so every reply comes from
// exactly one table, however often it is swapped.
//
// [ReplyTo] is the whole protocol decision as a pure function of a request
// and a [Table] (the lease table, the served prefix and options, and which
// addresses are on probation): DISCOVER gets an OFFER, REQUEST an ACK or a
// NAK (also to a MAC without a lease that asks for an address of the
// prefix: the agent is authoritative for it), INFORM an ACK with the
// pool's options; an unknown client's DISCOVER and anything else get no
// answer. [Declined] and [Released] check a DECLINE and a RELEASE;
// [probation.Set] holds declined addresses back for a while, with time as a
// parameter. [Destination] decides where a reply is sent (RFC 2131, section
// 4.1, with NAKs to ciaddr as Kea sends them). [Agent] ties them to a
// UDP socket ([Agent.Serve]: one read loop, no goroutine per message, and
// no allocation from the request read to the OFFER, ACK or NAK sent; on
// Linux [Listen] gives a [Socket] whose reads wait in the kernel rather
// than in Go's network poller),
// counts what it does ([Agent.Stats], [Agent.Collector] for Prometheus),
// and loads the pool from a watched file ([Agent.Watch])
// or from the API server ([IPPoolWatch]).
//
// # DECLINE: what a bystander cannot abuse
//
// RFC 2131 (section 4.3.3) says a server MUST mark a declined address as
// not available, but a DECLINE carries no proof of who sent it: anyone on
// the segment who saw a client's broadcast REQUEST knows its MAC and
// address and can decline in its name. The agent therefore accepts a
// DECLINE as far as a real client's behaviour explains it, and no
// further:
//
//   - A client declines only the address it was just given: it probes the
//     address after the ACK of a REQUEST from SELECTING or INIT-REBOOT
//     (ciaddr zero; a renewal is not probed) and declines at once when
//     another host answers (RFC 2131 section 4.4.1; busybox udhcpc -a
//     within about 2 s, dhcpcd's RFC 5227 probes within about 9 s). So a
//     DECLINE of the client's own address is accepted only within the
//     decline window (DefaultDeclineWindow, 60 s; WithDeclineWindow)
//     after this agent's ACK that bound the address; later ones are
//     dropped (ErrNotJustBound), counted, and logged at -v=1.
//   - A client that declined an address never asks to keep it: it goes
//     back to INIT and DISCOVERs without it. So a REQUEST from the same MAC
//     for an address on probation after a decline in its name (RENEWING,
//     REBINDING, INIT-REBOOT) shows that the decline was not its own: the
//     agent ACKs it and lifts the probation (Stats.Lifts). A REQUEST from
//     another MAC for the address is still NAKed, and a DISCOVER from the
//     decliner gets no OFFER during the probation.
//
// A spoofer can still send its DECLINE inside the window, right after the
// victim's ACK: the address goes on probation, the victim, bound, keeps
// using it, and its first renewal lifts the probation; a DECLINE at any
// other time does nothing. What remains is a victim that restarts from
// scratch (a DISCOVER without its old lease) during a probation a spoofer
// started within the window: it waits for the probation to end, as after a
// genuine decline. A genuine decline still holds the address for the
// whole probation, since the decliner never sends the REQUEST that would
// lift it. The agent remembers binding ACKs by address (one word each,
// for 65,536 addresses; see bindings), not across restarts: a client that
// declines after the agent restarted between its ACK and its DECLINE is
// refused, and its next DISCOVER is offered the address again, which it
// then probes and declines within the window.
//
// Lines a client can cause at level 0 (an accepted DECLINE or RELEASE, a
// lifted probation) are limited to 10 a minute of each kind; the next line
// logged says how many were not, and the summary counts them all. Text a
// client sends (the DECLINE's message) is logged on one line, escaped and
// cut to 256 bytes.
//
// A reply is never larger than the client accepts: [ReplyLimit] reads the
// client's maximum DHCP message size (option 57; 576 bytes, IP and UDP
// headers included, when it sends none). When the pool's options and the
// echoed relay agent information do not all fit, Reply keeps them in a
// documented order of priority, cuts lists (name servers, NTP servers,
// search domains) to the entries that fit, and uses option overload for
// the file and sname fields when that keeps more. [ReplyWithTrim] says
// what was left out, and the Agent logs it as a warning once per load of
// the pool and option, not once per packet.
//
// # Layers, and where DHCPv6 goes
//
// The agent is five packages under examples/dhcpagent:
//
//   - agent (this package): the DHCPv4 decision and the server around it.
//     The decision is pure, a request and a [Table] in, a reply out
//     (reply.go, request.go, answer.go, fit.go, pack.go, options.go,
//     destination.go, client_messages.go, table.go, with the reply built
//     in reused memory: reply_scratch.go, option_cache.go); the server
//     swaps table versions (load.go), answers (respond.go, handle.go,
//     serve.go), takes note of DECLINE and RELEASE (decline.go,
//     bindings.go), counts (stats.go, metrics.go) and loads pools from a
//     file (pool.go, watch.go) or the API server (apiserver.go).
//   - dhcp4wire: the DHCPv4 wire codec (decode and encode, no decision).
//   - probation: the declined addresses held back, as data with time as a
//     parameter. Protocol-neutral.
//   - udpsocket: the socket the server reads from. Protocol-neutral.
//   - the command (package main): flags, health, wiring.
//
// DHCPv6 is to add a decision (a Reply to SOLICIT, REQUEST, RENEW, ...
// from the same [Table] of leases) and a codec (a dhcp6wire beside
// dhcp4wire), and reuse the rest: the table versions, the pool sources,
// probation, stats and the socket (a ListenIPv6 in udpsocket). The v4
// decision still shares this package with the server; it is to move into
// a package of its own, with the v6 decision beside it, so that the
// server holds no protocol and serves either.
package agent
