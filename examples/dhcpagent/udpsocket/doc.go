// Package udpsocket is the DHCP agent's network socket, and nothing of
// DHCP: a UDP socket bound to one interface that may broadcast ([Listen]),
// whose reads wait in the kernel rather than in Go's network poller (see
// [Socket]), and the size of its receive buffer ([SetReceiveBuffer]).
//
// It is protocol-neutral on purpose: the server (package agent) reads and
// writes datagrams through it and knows nothing of how they are bound.
// A Socket speaks IPv4 only (recvfrom and sendto take a sockaddr_in).
// For DHCPv6, [ListenIPv6] binds [::]:547 on the interface as a
// *net.UDPConn that receives unicast only (IPV6_MULTICAST_ALL off, no
// group joined): what relays send; clients' multicasts are read, with
// their frame's source MAC, by package packetsocket, and this socket
// sends every reply.
package udpsocket

import "errors"

// ErrNotIPv4 is returned by Listen for an address that is not IPv4 and by
// a write to one: a Socket speaks IPv4 (see the package documentation).
var ErrNotIPv4 = errors.New("not an IPv4 address")
