// Package udpsocket is the DHCP agent's network socket, and nothing of
// DHCP: a UDP socket bound to one interface that may broadcast ([Listen]),
// whose reads wait in the kernel rather than in Go's network poller (see
// [Socket]), and the size of its receive buffer ([SetReceiveBuffer]).
//
// It is protocol-neutral on purpose: the server (package agent) reads and
// writes datagrams through it and knows nothing of how they are bound.
// Today a Socket speaks IPv4 only (recvfrom and sendto take a
// sockaddr_in); DHCPv6 will add a ListenIPv6 here, on port 547 with a
// sockaddr_in6 and multicast membership, beside Listen, and the server
// will read from it with the same loop.
package udpsocket

import "errors"

// ErrNotIPv4 is returned by Listen for an address that is not IPv4 and by
// a write to one: a Socket speaks IPv4 (see the package documentation).
var ErrNotIPv4 = errors.New("not an IPv4 address")
