// Package dhcp4wire is the DHCPv4 wire side of the agent, and nothing
// else: it reads and writes messages and encodes options; it decides no
// answer (package dhcp4 does).
//
//   - [Decode] reads a datagram into a reused dhcpv4.DHCPv4 without
//     copying (its byte slices alias the datagram), and [Append] writes a
//     message into a reused buffer; both give exactly what the dhcp
//     library's FromBytes and ToBytes give, without their allocations.
//   - [LeaseOptions] are the options a lease's OFFER or ACK carries;
//     [OptionCache] keeps them encoded, as [Part] values, per table.
//   - [Fit] puts parts into a message of at most [ReplyLimit] bytes (the
//     client's option 57), by priority, cutting lists to whole entries and
//     using option overload (RFC 2132 section 9.3, RFC 3396) when that
//     keeps more; [Trim] reports what it left out.
//   - [Scratch] is the reused memory a reply is built in.
//
// DHCPv6 has its own codec beside this one, package dhcp6wire.
package dhcp4wire
