package packetsocket

import "encoding/binary"

// udpChecksum is the Internet checksum (RFC 1071) of the UDP datagram udp
// (its header and payload, as long as its length field says) sent over
// IPv6 from src to dst (16 bytes each, as they stand in the IPv6 header),
// taken over the pseudo-header of RFC 8200 section 8.1 (the addresses,
// the upper-layer length, next header 17) and udp, checksum field
// included as it stands. So it does both jobs: with the field zeroed it
// is the value to put there (a result of 0 goes out as 0xffff, its other
// one's complement form, since 0 means "no checksum", which IPv6 forbids);
// with the field filled in, it is 0 when the datagram is intact.
//
// The reader verifies with it and the sender fills with it; it does not
// allocate. Sixteen-bit words, summed in a 64-bit accumulator, folded once
// at the end: a 1,500-byte frame takes well under a microsecond, so no
// wider trick is worth its obscurity here.
func udpChecksum(src, dst, udp []byte) uint16 {
	acc := sum16(src, 0)
	acc = sum16(dst, acc)
	acc += uint64(len(udp)) + protoUDP // the pseudo-header's two last words
	acc = sum16(udp, acc)
	for acc > 0xffff {
		acc = acc>>16 + acc&0xffff
	}
	return ^uint16(acc)
}

// sum16 adds b to acc as big-endian 16-bit words, an odd last byte
// padded with a zero (RFC 1071).
func sum16(b []byte, acc uint64) uint64 {
	for len(b) >= 2 {
		acc += uint64(binary.BigEndian.Uint16(b))
		b = b[2:]
	}
	if len(b) == 1 {
		acc += uint64(b[0]) << 8
	}
	return acc
}
