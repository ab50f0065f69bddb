package main

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// urlNamespace is RFC 9562's namespace for name-based UUIDs of URLs.
var urlNamespace = [16]byte{0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}

// poolDUID is the agent's DHCPv6 server identifier when -duid is not
// given: a DUID-UUID (RFC 6355, type 4) whose UUID is the name-based
// (version 5) UUID of the pool's identity,
// network.vmnetkit.dev/namespaces/NAMESPACE/ippools/NAME.
//
// Why this rule: a client keeps its server's DUID and addresses its
// RENEW, RELEASE and DECLINE to it; a server must ignore those that name
// another server (RFC 8415, sections 16.6 to 16.9), so a DUID that changed
// across a restart would leave every client unanswered until it falls
// back to REBIND at T2. The pool's identity survives what the other
// candidates do not: a DUID-LLT (what Kea makes) needs a file kept across
// restarts, which a pod does not have; a DUID-LL of the interface's MAC
// changes when the pod is recreated with a new veth or moves to another
// node. Replicas of the agent for one pool serve one table and get the
// same DUID, so a client may renew with either. It needs no state and no
// clock: the same pool gives the same DUID, byte for byte.
func poolDUID(namespace, name string) []byte {
	h := sha1.New()
	h.Write(urlNamespace[:])
	h.Write([]byte("network.vmnetkit.dev/namespaces/" + namespace + "/ippools/" + name))
	var uuid [16]byte
	copy(uuid[:], h.Sum(nil))
	uuid[6] = uuid[6]&0x0f | 0x50 // version 5
	uuid[8] = uuid[8]&0x3f | 0x80 // RFC 9562 variant
	return append(binary.BigEndian.AppendUint16(nil, 4), uuid[:]...)
}

// parseDUID reads -duid: a DUID in hex, with or without colons, of 3 to
// 130 bytes (RFC 8415, section 11.1: at most 128 octets after the type).
func parseDUID(s string) ([]byte, error) {
	b, err := hex.DecodeString(strings.ReplaceAll(s, ":", ""))
	if err != nil {
		return nil, fmt.Errorf("-duid %q: not hex: %w", s, err)
	}
	if len(b) < 3 || len(b) > 130 {
		return nil, errors.New("-duid " + fmt.Sprintf("%q", s) + ": a DUID is a 2-byte type and 1 to 128 bytes")
	}
	return b, nil
}

// serverID4 is -server-ip's address: the zero Addr (the pool's serverIP)
// when it is empty, -iface's one IPv4 address (neither loopback nor
// link-local) for iface, read once at start. An interface with none or
// with several is an error naming what it has: which one clients renew
// with must not be a guess.
func (c *config) serverID4() (netip.Addr, error) {
	if c.serverIP != "iface" {
		a, _ := netip.ParseAddr(c.serverIP) // checked by parse; "" gives the zero Addr
		return a, nil
	}
	ifi, err := net.InterfaceByName(c.iface)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("-server-ip iface: %w", err)
	}
	addrs, err := ifi.Addrs()
	if err != nil {
		return netip.Addr{}, fmt.Errorf("-server-ip iface: %s: %w", c.iface, err)
	}
	var found []netip.Addr
	for _, a := range addrs {
		p, err := netip.ParsePrefix(a.String())
		if err != nil || !p.Addr().Is4() || p.Addr().IsLoopback() || p.Addr().IsLinkLocalUnicast() {
			continue
		}
		found = append(found, p.Addr())
	}
	if len(found) != 1 {
		return netip.Addr{}, fmt.Errorf("-server-ip iface: %s has %d IPv4 addresses %v, want exactly one (or give -server-ip an address)", c.iface, len(found), found)
	}
	return found[0], nil
}
