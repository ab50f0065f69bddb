// Package agent is the DHCP server that serves the lease table of one
// vmnetkit address pool: the socket's read loop, the handler that answers
// each message, the table versions it answers from, and the side effects
// of DECLINE and RELEASE, for DHCPv4 and DHCPv6. It decides no reply
// itself: the decisions are packages dhcp4's and dhcp6's, pure, a request
// and a table in, a reply out.
//
// The pool arrives from a watched file (package poolsource) or as the
// IPPool from the API server (package apiserver), which deliver each
// version to [Agent.Accept]. Each load ([Agent.Apply]) converts it into an
// [ipam.Spec] and its allocations, builds an immutable [leasestore.Store],
// logs the plan between the old and the new table and the problems found,
// and swaps the table in with one atomic pointer store (load.go). Requests
// read the pointer once, so every reply comes from exactly one table,
// however often it is swapped.
//
// [Agent.Serve] reads a UDP socket in one loop, no goroutine per message,
// and no allocation from the request read to the OFFER, ACK or NAK sent
// (serve4.go, loop.go); [Agent.Handle] answers one message (handle4.go): it asks
// dhcp4.Decide for the reply, built in pooled memory, from the table being
// served and the addresses on probation at the agent's clock, sends it to
// dhcp4's destination, and notes an ACK's binding (respond4.go).
// A DECLINE accepted puts the address on probation ([probation.Set]), a
// RELEASE is logged (decline4.go, bindings.go; the decline hook is how
// the command records declines as Events on the IPPool, with package
// apiserver). The agent counts what it does into
// package metrics ([Agent.Stats], [Agent.Collector], [Agent.Summarize]).
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
//     agent ACKs it and lifts the probation (metrics.Stats.Lifts). A REQUEST from
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
// # Layers
//
// The agent is these packages under examples/dhcpagent, each one concern,
// one family beside the other where they differ:
//
//   - agent (this package): the server. Shared by both families: the
//     table versions and loads (load.go), the send rules (send.go), the
//     log limits (loglimit.go), probation and the decline hook. Per
//     family, the files named *4.go and *6.go: the read loops (serve4.go
//     with loop.go, serve6.go), the handlers (handle4.go with
//     respond4.go, handle6.go), DECLINE and RELEASE (decline4.go,
//     decline6.go, with the binding windows in bindings.go and
//     bindings6.go), the state a table version keeps (version4.go;
//     load6.go's version6) and the counters (stats.go, stats6.go).
//   - dhcp4, dhcp6: the decisions, pure: a request and a table in, a reply
//     or the reason for silence out; no socket, no clock, no counter.
//   - dhcp4wire, dhcp6wire: the wire codecs, no decision.
//   - poolsource: where pools come from (the Pool JSON type, the watched
//     file), delivered whole to the server.
//   - apiserver: the API-server mode (the IPPool watch, Events on the
//     IPPool): the only package that uses client-go, so this one and
//     poolsource know no Kubernetes client.
//   - lastgood: the last pool loaded, on local disk, for a start without
//     the API server.
//   - metrics: the counters, their Stats and the Prometheus collectors.
//   - probation: the declined addresses held back, as data with time as a
//     parameter.
//   - udpsocket: the UDP sockets both families read from and answer
//     through; their writes never wait.
//   - packetsocket: DHCPv6's multicasts in, with their frame's MAC, and
//     their replies out, straight to that MAC.
//   - the command (package main): flags, health, wiring.
//
// A pool's IPv6 part (spec.ipv6, status.ipv6, see poolsource.Pool.Config6)
// is built by the same [Agent.Apply] into the same table version, so both
// families swap together. [Agent.Serve6] reads clients' multicasts to
// ff02::1:2 from an AF_PACKET socket, which gives each frame's source
// MAC, and relays' unicasts from a UDP socket on [::]:547
// (udpsocket.ListenIPv6, unicast only, so that nothing is answered
// twice); a reply to what the packet socket read goes back through it, in
// a frame to the requester's MAC, a reply to what the UDP socket read
// through the UDP socket. The server names itself by the DUID given with
// [WithServerDUID]; the relays it answers are [WithRelays6]'s.
//
// # Sending never waits
//
// send.go holds the rule both families follow (a host on the link must
// not be able to stall the server): sockets never block a write; a reply
// the kernel has no room for is dropped and counted; a reply to a
// destination not known to be reachable uses at most half the socket's
// send buffer; DHCPv6 replies to what the packet socket read need no
// neighbour discovery. Every line a packet can cause at level 0 is
// limited to logBurst a minute per kind (loglimit.go).
//
// # DHCPv6: which lease a client gets
//
// The pool records MACs; a DHCPv6 client names itself by a DUID, which
// holds a MAC only for DUID-LLT and DUID-LL (dhclient's and dhcpcd's
// default, perfdhcp's). NetworkManager and systemd-networkd send DUID-UUID
// or DUID-EN, and a link-local address may not be EUI-64 (stable privacy,
// or set by hand). The decision tries the client's candidate MACs in
// order (dhcp6.ClientMACs): the DUID's, the frame's source MAC, the MAC of
// an EUI-64 link-local source (universal or locally administered), a
// relay's client link-layer address option (RFC 6939). The frame's MAC is
// why Serve6 reads multicasts from a packet socket: a UDP socket hides it,
// and it is the only candidate left for a DUID-UUID client with a
// non-EUI-64 link-local (Kea 2.2 cannot serve that client its MAC's
// reservation; it also refuses locally administered MACs from a
// link-local, which this rule serves). The netns tests run dhclient -6 and
// dhcpcd with each kind of DUID and link-local.
package agent
