// Package packetsocket receives the DHCPv6 messages clients multicast to
// All_DHCP_Relay_Agents_and_Servers (ff02::1:2, UDP port 547) on one
// Ethernet interface, with the Ethernet source MAC of the frame each came
// in, which a UDP socket hides, and sends the replies straight to that
// MAC.
//
// Why: the DHCPv6 agent finds a client's lease by MAC. A DUID-LLT or
// DUID-LL carries one, and a link-local address built by EUI-64 encodes
// one, but NetworkManager and systemd-networkd send DUID-UUID or DUID-EN
// by default, and a link-local address may be stable-privacy or set by
// hand: then the frame's source MAC is the only one left (Kea 2.2 never
// reads it, see the agent's documentation). [Listen] opens a Linux
// AF_PACKET socket (SOCK_DGRAM, so reads start at the IPv6 header and the
// kernel reports the link-layer source in sockaddr_ll) bound to the
// interface, with a classic BPF filter that lets only IPv6 UDP datagrams
// to [ff02::1:2]:547 reach it, and a PACKET_MR_MULTICAST membership for
// 33:33:00:01:00:02 so that a NIC that filters multicast passes them.
//
// It answers too: [Socket.WriteTo] sends a reply through the same socket,
// from the interface's link-local address and port 547, in an Ethernet
// frame addressed to the MAC the request came from. A UDP socket would
// first ask neighbour discovery for the client's address, and a host that
// sends SOLICITs from a link-local address nobody has makes each reply
// wait some 3 s for an answer that never comes, while the replies behind
// it fill the send buffer and the server's one writer blocks. WriteTo
// asks no neighbour and never waits: when the kernel has no room for a
// frame at once it returns [ErrWouldBlock], and the reply is dropped, as
// the network would have.
//
// The server also has an ordinary UDP socket on [::]:547 bound to the
// same interface, for the unicast datagrams relays send (RELAY-FORW to a
// global address of the server). That socket must not receive the
// multicast copies too (the server would answer each SOLICIT twice): it
// sets IPV6_MULTICAST_ALL to 0 and joins no group. See
// udpsocket.ListenIPv6.
//
// The socket receives through a TPACKET_V3 ring (PACKET_RX_RING) that the
// kernel hands over a block at a time, when the block fills or a
// millisecond after it started, so the serving thread wakes once per
// block rather than once per message, for at most two milliseconds more
// per message (docs/performance.md has what it saves under perfdhcp).
// Reads wait in the kernel (poll(2)), as udpsocket's do, and allocate
// nothing: the [Frame] a read returns holds values and a payload that
// aliases the caller's buffer.
//
// Read checks the lengths of each datagram and its UDP checksum, since
// the Ethernet frame check sequence covers one wire only, not the bridges
// and virtual NICs a frame crosses, and a datagram the kernel's UDP would
// have dropped must not reach the server either. The kernel has not
// verified it for a packet socket, but each frame of the ring says what
// it knows: TP_STATUS_CSUM_VALID, the device verified it;
// TP_STATUS_CSUMNOTREADY, the checksum is not computed yet, because the
// packet never left the host (sent by a local socket, or through a veth
// or a VM's tap with checksum offload, whose sending side leaves the sum
// to a device that never comes): Read takes both as they are, as the
// kernel's UDP does. Otherwise it computes the checksum over the IPv6
// pseudo-header (RFC 8200 section 8.1) and skips the datagram when it is
// wrong or zero (no checksum, which IPv6 forbids); [Socket.BadChecksums]
// counts them. WriteTo always fills the checksum in.
package packetsocket

import "errors"

// ErrUnsupported is returned by Listen outside Linux.
var ErrUnsupported = errors.New("packetsocket: AF_PACKET needs Linux")
