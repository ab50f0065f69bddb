// Package udpsocket is the DHCP agent's network socket, and nothing of
// DHCP: a UDP socket bound to one interface that may broadcast ([Listen]),
// whose reads wait in the kernel rather than in Go's network poller (see
// [Socket]), and the size of its receive buffer ([SetReceiveBuffer]).
//
// It is protocol-neutral on purpose: the server (package agent) reads and
// writes datagrams through it and knows nothing of how they are bound.
// A Socket speaks one family. For DHCPv4, [Listen] binds 0.0.0.0:67. For
// DHCPv6, [ListenIPv6] binds [::]:547 on the interface, receiving unicast
// only (IPV6_MULTICAST_ALL off, no group joined): what relays send;
// clients' multicasts are read, with their frame's source MAC, by package
// packetsocket, and this socket sends every reply.
package udpsocket

import "errors"

// ErrNotIPv4 is returned by Listen for an address that is not IPv4 and by
// an IPv4 Socket's write to one.
var ErrNotIPv4 = errors.New("not an IPv4 address")

// ErrWouldBlock is wrapped by a Linux Socket's WriteToUDPAddrPort when
// the socket's send buffer has no room for the datagram (sendto's EAGAIN,
// or ENOBUFS: see Socket.WriteToUDPAddrPort). The datagram is not sent;
// the caller drops the reply and counts it. Elsewhere Socket is
// net.UDPConn, whose writes wait instead, and nothing returns it.
var ErrWouldBlock = errors.New("send buffer full")

// ErrNotIPv6 is returned by ListenIPv6 for an address that is not IPv6
// (an IPv4-mapped one included) and by an IPv6 Socket's write to one.
var ErrNotIPv6 = errors.New("not an IPv6 address")
