// Package packetsocket receives the DHCPv6 messages clients multicast to
// All_DHCP_Relay_Agents_and_Servers (ff02::1:2, UDP port 547) on one
// Ethernet interface, with the Ethernet source MAC of the frame each came
// in, which a UDP socket hides.
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
// It only receives. The server answers from an ordinary UDP socket on
// [::]:547 bound to the same interface, which the kernel sources from the
// interface's link-local address; that socket must not receive the
// multicast copies too (the server would answer each SOLICIT twice): it
// sets IPV6_MULTICAST_ALL to 0 and joins no group, so it receives only
// unicast datagrams, which is what a relay (RELAY-FORW to a global
// address of the server) sends. See udpsocket.ListenIPv6.
//
// The socket receives through a TPACKET_V3 ring (PACKET_RX_RING) that the
// kernel hands over a block at a time, when the block fills or a
// millisecond after it started, so the serving thread wakes once per
// block rather than once per message, for at most two milliseconds more
// per message (docs/performance.md has what it saves under perfdhcp).
// Reads wait in the kernel (poll(2)), as udpsocket's do, and allocate
// nothing: the [Frame] a read returns holds values and a payload that
// aliases the caller's buffer. The UDP checksum is not verified (the
// Ethernet frame check sequence covers the wire, and on a veth the kernel
// leaves locally sent checksums uncomputed); lengths are.
package packetsocket

import "errors"

// ErrUnsupported is returned by Listen outside Linux.
var ErrUnsupported = errors.New("packetsocket: AF_PACKET needs Linux")
