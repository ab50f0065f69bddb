package packetsocket

import "net/netip"

// The classic BPF program the socket's filter runs on each IPv6 packet
// (SOCK_DGRAM: offset 0 is the IPv6 header). It accepts version 6, next
// header UDP (no extension headers: DHCPv6 clients send none), destination
// ff02::1:2 and UDP destination port 547, and drops everything else in the
// kernel, before any copy to the socket.
//
// Each instruction is {code, jt, jf, k}, as struct sock_filter.
var filterProgram = [...]struct {
	code   uint16
	jt, jf uint8
	k      uint32
}{
	{0x30, 0, 0, 0},                 // ldb [0]
	{0x54, 0, 0, 0xf0},              // and #0xf0
	{0x15, 0, 12, 0x60},             // jeq #0x60 (version 6), else drop
	{0x30, 0, 0, 6},                 // ldb [6] (next header)
	{0x15, 0, 10, protoUDP},         // jeq #17, else drop
	{0x20, 0, 0, 24},                // ld [24] (destination, first word)
	{0x15, 0, 8, 0xff020000},        // jeq ff02:0000, else drop
	{0x20, 0, 0, 28},                // ld [28]
	{0x15, 0, 6, 0},                 // jeq 0, else drop
	{0x20, 0, 0, 32},                // ld [32]
	{0x15, 0, 4, 0},                 // jeq 0, else drop
	{0x20, 0, 0, 36},                // ld [36]
	{0x15, 0, 2, 0x00010002},        // jeq 0001:0002, else drop
	{0x28, 0, 0, ipv6HeaderLen + 2}, // ldh [42] (UDP destination port)
	{0x15, 1, 0, ServerPort},        // jeq #547: accept
	{0x06, 0, 0, 0},                 // drop: ret #0
	{0x06, 0, 0, 0x40000},           // accept: ret #262144 (the whole packet)
}

// ServerPort is the UDP port of DHCPv6 servers and relay agents.
const ServerPort = 547

// AllServers is All_DHCP_Relay_Agents_and_Servers, the group the
// filter accepts.
var AllServers = netip.MustParseAddr("ff02::1:2")
