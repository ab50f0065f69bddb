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
// [Probation] holds declined addresses back for a while, with time as a
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
// A reply is never larger than the client accepts: [ReplyLimit] reads the
// client's maximum DHCP message size (option 57; 576 bytes, IP and UDP
// headers included, when it sends none). When the pool's options and the
// echoed relay agent information do not all fit, Reply keeps them in a
// documented order of priority, cuts lists (name servers, NTP servers,
// search domains) to the entries that fit, and uses option overload for
// the file and sname fields when that keeps more. [ReplyWithTrim] says
// what was left out, and the Agent logs it as a warning once per load of
// the pool and option, not once per packet.
package agent
