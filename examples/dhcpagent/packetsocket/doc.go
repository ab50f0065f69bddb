// Package packetsocket receives the DHCPv6 messages clients multicast to
// All_DHCP_Relay_Agents_and_Servers (ff02::1:2, UDP port 547) on one
// Ethernet interface, with the Ethernet source MAC of the frame each came
// in, which a UDP socket hides, and sends the replies straight to that
// MAC. The frame's MAC is the one left to find a client's lease by when
// its DUID carries none and its link-local address is not EUI-64
// (docs/dhcpagent-design.md).
//
// What a caller relies on:
//
//   - [Listen] (Linux, CAP_NET_RAW) receives only IPv6 UDP datagrams to
//     [ff02::1:2]:547 on its interface; the unicasts relays send go to an
//     ordinary UDP socket on [::]:547 that receives no multicast copy
//     (udpsocket.ListenIPv6), so nothing is answered twice.
//   - [Socket.Read] waits in the kernel and allocates nothing: the [Frame]
//     it returns holds values and a payload aliasing the caller's buffer.
//     Datagrams arrive a ring block at a time, at most two milliseconds
//     late. A datagram with wrong lengths or a wrong UDP checksum is
//     skipped; [Socket.BadChecksums] counts the latter.
//   - [Socket.WriteTo] answers from the interface's link-local address and
//     port 547, in a frame to the MAC the request came from: it asks no
//     neighbour discovery and never waits; when the kernel has no room
//     for the frame it returns [ErrWouldBlock] and the reply is dropped.
//     It always fills the checksum in.
package packetsocket

import "errors"

// ErrUnsupported is returned by Listen outside Linux.
var ErrUnsupported = errors.New("packetsocket: AF_PACKET needs Linux")
