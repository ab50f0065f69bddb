package dhcp4wire

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

// Trim is what [Fit] left out of a reply so that it fits its limit. The zero Trim is a reply that left nothing out.
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

// Fit sets resp's options to parts, in priority order, as many as fit in
// a DHCP message of limit bytes (see [ReplyLimit]), and returns what it
// left out: a mandatory part always goes in the options field; any other
// goes whole in the first field with room for it, or, a list, cut to the
// entries that fit, in whole entries; anything else is dropped. Each part
// gets the room the parts before it leave, so a smaller one further down
// may still fit where a larger one above it did not.
//
// Parts are placed in the options field first. When some do not fit there,
// Fit also tries option overload (RFC 2132 section 9.3): the 3-byte option
// 52 in the options field, and up to 126 bytes of options in the file field
// and 62 in the sname field, which a reply leaves empty otherwise. It keeps
// the overloaded packing only if it keeps more by the priority order, so a
// reply that fits without overload never uses it, and a client that
// ignores overload still finds the mandatory options and the echoes in the
// options field.
func Fit(resp *dhcpv4.DHCPv4, parts []Part, limit int) Trim {
	t := Trim{Limit: limit}
	plain := [numFields]int{fieldOptions: limit - fixedLen - 1} // 1: the end option
	total := 0
	for _, pt := range parts {
		total += optionCost(len(pt.Data))
	}
	if total <= plain[fieldOptions] { // everything fits: the common case
		for _, pt := range parts {
			resp.Options[pt.Code] = pt.Data
		}
		return t
	}

	// The packings and the file and sname fields' options live on the
	// stack; a trimmed reply allocates its Cuts and its overloaded fields'
	// strings.
	var plainPacking, overPacking [14]placement
	p := pack(plainPacking[:0], parts, plain, 1)
	room := [numFields]int{plain[fieldOptions] - 3, fileRoom, snameRoom}
	if q := pack(overPacking[:0], parts, room, numFields); q.overload() != 0 && q.better(p) {
		p = q
	}
	var file [fileRoom + 1]byte   // its options and the end option
	var sname [snameRoom + 1]byte // likewise
	fields := [numFields][]byte{fieldFile: file[:0], fieldSname: sname[:0]}
	for i, pt := range parts {
		if p[i].kept < pt.n {
			if t.Cuts == nil {
				t.Cuts = make([]Cut, 0, len(parts)-i)
			}
			t.Cuts = append(t.Cuts, Cut{Code: pt.Code, Kept: p[i].kept, Of: pt.n})
		}
		for _, s := range p[i].segs[:p[i].nsegs] {
			v := pt.bytesOf(s.from, s.to)
			if s.field == fieldOptions {
				resp.Options[pt.Code] = v
				continue
			}
			fields[s.field] = append(append(fields[s.field], pt.Code, byte(len(v))), v...)
		}
	}
	if o := p.overload(); o != 0 {
		resp.Options[dhcpv4.OptionOptionOverload.Code()] = []byte{o}
		// The fields hold the options as raw bytes, each ending with the
		// end option; ToBytes copies them and pads with zeros.
		if o&1 != 0 {
			resp.BootFileName = string(append(fields[fieldFile], 255))
		}
		if o&2 != 0 {
			resp.ServerHostName = string(append(fields[fieldSname], 255))
		}
	}
	return t
}
