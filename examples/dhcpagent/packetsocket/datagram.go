package packetsocket

import (
	"encoding/binary"
	"net/netip"
)

// The largest datagram the sender builds: one Ethernet frame's payload
// (the 1,500-byte MTU, RFC 894), less the IPv6 and UDP headers, for the
// message. A DHCPv6 reply is a few hundred bytes; a longer one goes
// through a UDP socket, which may fragment it.
const (
	ethernetMTU = 1500
	maxPayload  = ethernetMTU - ipv6HeaderLen - udpHeaderLen // 1,452
)

// hopLimit is the hop limit of what the sender sends: 64, Linux's default
// (net.ipv6.conf.*.hop_limit), which the UDP socket that answered before
// used, so a reply looks as it did. Replies go to the link they came from
// (to the frame's source MAC), where any value passes; 64 rather than 1 or
// 255 in case that MAC is a router's, forwarding to a relay further away.
const hopLimit = 64

// buildDatagram writes into b the IPv6 packet carrying payload as one UDP
// datagram from src to dst (zones ignored), with traffic class 0, flow
// label 0 (unlabelled, RFC 6437: one reply needs no flow), hopLimit, and a
// correct checksum, and returns b cut to it. b must hold
// ipv6HeaderLen+udpHeaderLen+len(payload) bytes, which must fit the 16-bit
// length fields; the sender checks both. It does not allocate.
func buildDatagram(b []byte, src, dst netip.AddrPort, payload []byte) []byte {
	udpLen := udpHeaderLen + len(payload)
	p := b[:ipv6HeaderLen+udpLen]
	binary.BigEndian.PutUint32(p[0:4], 6<<28) // version, traffic class, flow label
	binary.BigEndian.PutUint16(p[4:6], uint16(udpLen))
	p[6], p[7] = protoUDP, hopLimit
	s, d := src.Addr().As16(), dst.Addr().As16()
	copy(p[8:24], s[:])
	copy(p[24:40], d[:])
	udp := p[ipv6HeaderLen:]
	binary.BigEndian.PutUint16(udp[0:2], src.Port())
	binary.BigEndian.PutUint16(udp[2:4], dst.Port())
	binary.BigEndian.PutUint16(udp[4:6], uint16(udpLen))
	binary.BigEndian.PutUint16(udp[6:8], 0)
	copy(udp[udpHeaderLen:], payload)
	c := udpChecksum(p[8:24], p[24:40], udp)
	if c == 0 {
		c = 0xffff // 0 would say "no checksum" (RFC 768, RFC 8200 section 8.1)
	}
	binary.BigEndian.PutUint16(udp[6:8], c)
	return p
}

// AppendDatagram appends to b the IPv6 packet WriteTo would send to carry
// payload from src to dst (a correct checksum, hop limit 64), for tools
// and tests that craft frames of their own. It allocates only to grow b.
func AppendDatagram(b []byte, src, dst netip.AddrPort, payload []byte) []byte {
	n := len(b)
	b = append(b, make([]byte, ipv6HeaderLen+udpHeaderLen+len(payload))...)
	buildDatagram(b[n:], src, dst, payload)
	return b
}
