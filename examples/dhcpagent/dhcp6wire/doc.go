// Package dhcp6wire is the DHCPv6 wire codec of the agent, and nothing
// else: [Decode] reads a datagram (a client or server message, RFC 8415
// section 8, possibly inside nested RELAY-FORW or RELAY-REPL messages,
// section 9) into a reused [Packet] without copying, and [Append] writes a
// Packet into a reused buffer. It decides nothing: the protocol decision
// is package dhcp6.
//
// It is the agent's own small codec rather than a general one, for the
// same reason as dhcp4wire: the hot path allocates nothing. A Packet's
// byte slices alias the datagram, and its slices (relays, IAs, addresses,
// requested options, name servers, other options) keep their room from
// one Decode to the next, so a steady stream of messages decoded into one
// Packet allocates nothing once that room has grown.
//
// Options it reads: CLIENTID (1), SERVERID (2), IA_NA (3) with IAADDR (5)
// and STATUS_CODE (13) inside, ORO (6), ELAPSED_TIME (8), RELAY_MSG (9),
// STATUS_CODE (13), RAPID_COMMIT (14), INTERFACE_ID (18), DNS servers (23,
// RFC 3646), domain search list (24, RFC 1035 names, uncompressed) and, in
// relay messages, the client link-layer address (79, RFC 6939). Every
// other option, IA_TA (4) and IA_PD (25) among them, is kept verbatim in
// order in Options, so it is re-encoded unchanged, and otherwise ignored.
// [ParseDUID] reads the four DUID types of RFC 8415 section 11 and
// [DUID.MAC] the Ethernet address inside a DUID-LLT or DUID-LL.
//
// No input makes Decode panic (fuzz-checked), and its work is bounded by
// the datagram's length: each byte is read once per nesting level, and at
// most [MaxRelays] relay levels are accepted.
package dhcp6wire
