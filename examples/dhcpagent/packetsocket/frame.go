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

// errShort and errLength are the reasons parse refuses a datagram; the
// filter already passed it, so they mean a truncated or lying packet.
var (
	errShort  = errors.New("packetsocket: shorter than an IPv6 and a UDP header")
	errLength = errors.New("packetsocket: IPv6 or UDP length does not match the packet")
)

// parse fills f from the IPv6 packet p (as a SOCK_DGRAM packet socket
// reads it: from the IPv6 header on, possibly followed by link-layer
// padding). It does not allocate.
func parse(f *Frame, p []byte) error {
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
	f.Src = netip.AddrPortFrom(netip.AddrFrom16([16]byte(p[8:24])), binary.BigEndian.Uint16(udp[0:2]))
	f.Dst = netip.AddrFrom16([16]byte(p[24:40]))
	f.Payload = udp[udpHeaderLen:udpLen]
	return nil
}
