package dhcp4

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/insomniacslk/dhcp/dhcpv4"
)

// Sizes of RFC 2131 section 2 and RFC 2132 section 9.10 that bound a reply.
const (
	// MinMessageSize is the smallest maximum DHCP message size a client may
	// advertise in option 57, and the one assumed when it advertises none:
	// 576 bytes, the IP datagram every host must accept (RFC 791).
	MinMessageSize = 576
	// ipUDPOverhead is what IPv4 (a 20-byte header without options) and
	// UDP (8) add to a DHCP message.
	ipUDPOverhead = 28
	// fixedLen is the BOOTP header (236 bytes, up to and including the
	// file field) and the magic cookie (4) that precede the options field.
	fixedLen = 240
	// snameRoom and fileRoom are the bytes of options an overloaded sname
	// (64 bytes) and file (128) field hold: each field needs one byte for
	// its end option, and the wire encoder always zeroes the field's last
	// byte.
	snameRoom = 64 - 2
	fileRoom  = 128 - 2
)

// ReplyLimit is the largest DHCP message, in bytes from the op field to the
// end option, that a reply to req may be: the client's Maximum DHCP Message
// Size option (57), or [MinMessageSize] when the option is absent, is not
// two bytes long, or is below the minimum, less the 28 bytes of the IPv4
// and UDP headers.
//
// RFC 2132 calls option 57 "the maximum length DHCP message" a client
// accepts, and does not say whether the IP and UDP headers count. They
// do here, because the 576-byte minimum is RFC 791's datagram: RFC 2131
// section 2 derives it from an options field of 312 bytes, that is a
// 548-byte DHCP message in a 576-byte datagram. Clients advertise it that
// way too: busybox udhcpc sends 576, the size of the IP, UDP and DHCP
// packet it receives into. Counting the headers errs on the side of
// fitting: a client that does not count them, as dhcpcd (1472 on a
// 1500-byte link), gets 28 bytes less than it could take, never more.
func ReplyLimit(req *dhcpv4.DHCPv4) int {
	size := MinMessageSize
	if req != nil {
		// What req.MaxMessageSize() reads, without the error it allocates
		// when the option is absent.
		if v := req.Options[dhcpv4.OptionMaximumDHCPMessageSize.Code()]; len(v) == 2 {
			size = max(size, int(binary.BigEndian.Uint16(v)))
		}
	}
	return size - ipUDPOverhead
}

// Trim is what [ReplyWithTrim] left out of a reply so that it fits its
// limit. The zero Trim is a reply that left nothing out.
type Trim struct {
	Limit int   // the limit the reply fits, from ReplyLimit
	Cuts  []Cut // the options dropped or cut short, in priority order
}

// Cut is one option a reply dropped or cut short.
type Cut struct {
	Code uint8 // the option code
	// Kept of Of entries made it into the reply: name servers for 6 and 42,
	// names for 119; an option kept or dropped whole has one entry. Kept 0:
	// the option was dropped.
	Kept, Of int
}

// String is the cut as a log shows it: "6 dns 61/300" or
// "119 domain search 0/200" for a list, "82 relay agent info dropped" for
// an option kept or dropped whole.
func (c Cut) String() string {
	name, ok := cutNames[c.Code]
	if !ok {
		name = "option"
	}
	if c.Of == 1 && c.Kept == 0 {
		return fmt.Sprintf("%d %s dropped", c.Code, name)
	}
	return fmt.Sprintf("%d %s %d/%d", c.Code, name, c.Kept, c.Of)
}

// cutNames name the options a reply may leave out.
var cutNames = map[uint8]string{
	6:   "dns",
	15:  "domain name",
	42:  "ntp",
	56:  "message",
	61:  "client id",
	82:  "relay agent info",
	119: "domain search",
}

// String lists the cuts, "; " between them.
func (t Trim) String() string {
	s := make([]string, len(t.Cuts))
	for i, c := range t.Cuts {
		s[i] = c.String()
	}
	return strings.Join(s, "; ")
}

// part is one option of a reply as fit sees it: a value of n entries that
// fit may cut to its first k.
type part struct {
	code      uint8
	data      []byte // the whole value
	n         int    // entries; 1 for an option kept or dropped whole
	stride    int    // bytes per entry of a list of fixed-size entries
	ends      []int  // or, for a list of other entries, where each ends: entry i is data[ends[i]:ends[i+1]]
	mandatory bool   // kept whatever the limit
	overload  bool   // may be carried in the file or sname field
}

// whole is a part kept or dropped whole.
func whole(code uint8, v []byte) part {
	return part{code: code, data: v, n: 1}
}

// list reports whether pt may be cut short.
func (pt part) list() bool { return pt.stride > 0 || pt.ends != nil }

// offset is where entry k of pt starts (k <= pt.n).
func (pt part) offset(k int) int {
	switch {
	case pt.stride > 0:
		return k * pt.stride
	case pt.ends != nil:
		return pt.ends[k]
	case k == 0:
		return 0
	}
	return len(pt.data)
}

// bytesOf is the encoding of entries [from, to) of pt: a list's value is
// the concatenation of its entries.
func (pt part) bytesOf(from, to int) []byte {
	return pt.data[pt.offset(from):pt.offset(to)]
}

// optionCost is the bytes a value of n bytes takes in a message: a code
// and a length byte per instance of at most 255 bytes (RFC 3396).
func optionCost(n int) int {
	if n == 0 {
		return 2
	}
	return n + 2*((n+254)/255)
}

// Fields that carry options, in the order RFC 3396 concatenates them.
