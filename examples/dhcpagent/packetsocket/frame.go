package packetsocket

import (
	"encoding/binary"
	"errors"
	"net/netip"
)

// Frame is one UDP datagram a Socket received, with where it came from.
// Its Payload aliases the buffer given to Read.
type Frame struct {
	Payload []byte         // the UDP payload (the DHCPv6 message)
	Src     netip.AddrPort // the sender's IPv6 address (no zone) and UDP port
	Dst     netip.Addr     // the destination IPv6 address (ff02::1:2)
	SrcMAC  [6]byte        // the Ethernet source address of the frame
	IfIndex int            // the interface it arrived on
}

// Header sizes: the fixed IPv6 header and the UDP header.
const (
	ipv6HeaderLen = 40
	udpHeaderLen  = 8
	protoUDP      = 17
)

// errShort, errLength and errChecksum are the reasons parse refuses a
// datagram; the filter already passed it, so they mean a truncated, lying
// or damaged packet.
var (
	errShort    = errors.New("packetsocket: shorter than an IPv6 and a UDP header")
	errLength   = errors.New("packetsocket: IPv6 or UDP length does not match the packet")
	errChecksum = errors.New("packetsocket: bad UDP checksum")
)

// What a frame's tp_status in the receive ring says of its checksum
// (linux/if_packet.h; here too because parse builds everywhere).
const (
	// statusCsumNotReady (TP_STATUS_CSUMNOTREADY): the checksum field
	// holds only the pseudo-header's sum, to be completed by the sending
	// device's offload (CHECKSUM_PARTIAL). Only a packet that never left
	// the host carries it: sent by a local socket, over a veth from
	// another namespace, or by a VM through a tap with offload. Nothing
	// to verify; the frame check sequence of no wire was involved either.
	statusCsumNotReady = 0x8
	// statusCsumValid (TP_STATUS_CSUM_VALID): the receiving device
	// verified the checksum.
	statusCsumValid = 0x80
)

// parse fills f from the IPv6 packet p (as a SOCK_DGRAM packet socket
// reads it: from the IPv6 header on, possibly followed by link-layer
// padding) and checks its lengths, then, unless status (the frame's
// tp_status) says it is not computed yet or already verified, its UDP
// checksum: it refuses a wrong one, and a zero one, which over IPv6 means
// none and is to be dropped (RFC 8200 section 8.1). It does not allocate.
func parse(f *Frame, p []byte, status uint32) error {
	if len(p) < ipv6HeaderLen+udpHeaderLen || p[0]>>4 != 6 || p[6] != protoUDP {
		return errShort
	}
	payloadLen := int(binary.BigEndian.Uint16(p[4:6]))
	if ipv6HeaderLen+payloadLen > len(p) {
		return errLength
	}
	udp := p[ipv6HeaderLen : ipv6HeaderLen+payloadLen]
	udpLen := int(binary.BigEndian.Uint16(udp[4:6]))
	if udpLen < udpHeaderLen || udpLen > len(udp) {
		return errLength
	}
	// Bytes of the IPv6 payload past the UDP length are not the
	// datagram's: the checksum covers the UDP length (RFC 8200 section
	// 8.1), and Linux's own UDP trims them too.
	udp = udp[:udpLen]
	if status&(statusCsumNotReady|statusCsumValid) == 0 &&
		(binary.BigEndian.Uint16(udp[6:8]) == 0 || udpChecksum(p[8:24], p[24:40], udp) != 0) {
		return errChecksum
	}
	f.Src = netip.AddrPortFrom(netip.AddrFrom16([16]byte(p[8:24])), binary.BigEndian.Uint16(udp[0:2]))
	f.Dst = netip.AddrFrom16([16]byte(p[24:40]))
	f.Payload = udp[udpHeaderLen:]
	return nil
}
