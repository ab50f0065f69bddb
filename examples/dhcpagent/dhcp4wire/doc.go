// Package dhcp4wire is the DHCPv4 wire codec of the agent, and nothing
// else: [Decode] reads a datagram into a reused dhcpv4.DHCPv4 without
// copying (its byte slices alias the datagram), and [Append] writes a
// message into a reused buffer; both give exactly what the dhcp
// library's FromBytes and ToBytes give, without their allocations. It
// decides nothing: the protocol decision is package dhcp4's ReplyTo.
//
// DHCPv6 has its own codec beside this one, package dhcp6wire (Decode and
// Append over its own message types); the server reads and writes through
// whichever codec its socket speaks.
package dhcp4wire
