package dhcp4wire

import (
	"net"
	"net/netip"

	"github.com/insomniacslk/dhcp/dhcpv4"
)

// Scratch is the memory one reply is built in: the message, its
// options map, its hardware and IP addresses, and the option values it
// carries. The decision (package dhcp4's ReplyTo) builds each reply in a
// new one, which the reply then owns; a server (the agent's Handle)
// builds in one of a pool, reused once the reply is sent, so that a
// steady-state OFFER or ACK allocates nothing here. Both run the same
// code (dhcp4.Decide), so the pooled reply is the one ReplyTo returns,
// byte for byte.
//
// The zero Scratch is ready to use. One reply at a time: a reply
// built in it is valid until the next [Scratch.Start].
type Scratch struct {
	msg    dhcpv4.DHCPv4
	chaddr [16]byte   // the client's hardware address, as long as the field
	addrs  [3][4]byte // yiaddr, ciaddr, giaddr
	data   []byte     // option values, each a capped subslice
}

// Indexes of Scratch.addrs.
const (
	yiaddr = iota
	ciaddr
	giaddr
)

// Start begins a BOOTREPLY to req in s, with room for n bytes of option
// values: the fields a reply copies (RFC 2131, table 3) and zero addresses.
// It allocates only when s holds no options map yet or less than n bytes
// of room.
func (s *Scratch) Start(req *dhcpv4.DHCPv4, n int) *dhcpv4.DHCPv4 {
	opts := s.msg.Options
	if opts == nil {
		opts = make(dhcpv4.Options, 16) // room for every option a reply carries
	} else {
		clear(opts)
	}
	if cap(s.data) < n {
		// Never grown by append later: the parts already taken alias it.
		s.data = make([]byte, 0, n)
	}
	s.data = s.data[:0]
	s.msg = dhcpv4.DHCPv4{
		OpCode:        dhcpv4.OpcodeBootReply,
		HWType:        req.HWType,
		TransactionID: req.TransactionID,
		Flags:         req.Flags,
		ClientIPAddr:  net.IPv4zero,
		YourIPAddr:    net.IPv4zero,
		ServerIPAddr:  net.IPv4zero,
		GatewayIPAddr: s.ip4OrZero(giaddr, req.GatewayIPAddr),
		ClientHWAddr:  append(net.HardwareAddr(s.chaddr[:0:len(s.chaddr)]), req.ClientHWAddr...),
		Options:       opts,
	}
	return &s.msg
}

// ip4OrZero is ip's 4-byte form in s.addrs[i], or net.IPv4zero when ip is
// not IPv4.
func (s *Scratch) ip4OrZero(i int, ip net.IP) net.IP {
	if ip4 := ip.To4(); ip4 != nil {
		s.addrs[i] = [4]byte(ip4)
		return s.addrs[i][:]
	}
	return net.IPv4zero
}

// YourAddr is a's 4 bytes held in s, for the reply's yiaddr.
func (s *Scratch) YourAddr(a netip.Addr) net.IP {
	s.addrs[yiaddr] = a.As4()
	return s.addrs[yiaddr][:]
}

// ClientAddr is ip's 4 bytes held in s, or net.IPv4zero when ip is not
// IPv4, for the reply's ciaddr: the one a request's ciaddr echoes.
func (s *Scratch) ClientAddr(ip net.IP) net.IP {
	return s.ip4OrZero(ciaddr, ip)
}

// Take copies v to s's option values and returns the copy, capped so
// that an append to it cannot overwrite the next one. An empty v is nil,
// as a copy made by append([]byte(nil), v...) is.
func (s *Scratch) Take(v []byte) []byte {
	if len(v) == 0 {
		return nil
	}
	start := len(s.data)
	s.data = append(s.data, v...)
	return s.data[start:len(s.data):len(s.data)]
}

// Own appends src to dst with each part's data copied to s, so that a
// reply owns what it carries and a caller that changes the reply's
// options changes nothing an [OptionCache] holds.
func (s *Scratch) Own(dst []Part, src ...Part) []Part {
	for _, p := range src {
		if len(p.Data) > 0 {
			p.Data = s.Take(p.Data)
		}
		dst = append(dst, p)
	}
	return dst
}
