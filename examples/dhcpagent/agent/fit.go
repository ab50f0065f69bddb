package agent

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
const (
	fieldOptions = iota
	fieldFile
	fieldSname
	numFields
)

// segment is entries [from, to) of a part, carried in one field.
type segment struct{ field, from, to int }

// placement is where fit puts one part: its first kept entries, in the
// first nsegs of segs.
type placement struct {
	kept  int
	nsegs int
	segs  [numFields]segment
}

func (pl *placement) add(s segment) {
	pl.segs[pl.nsegs] = s
	pl.nsegs++
	pl.kept = s.to
}

// packing is the placement of each part.
type packing []placement

// pack places parts in priority order, each where the room left by the
// parts before it allows, using the first fields of room (1: the options
// field alone; numFields: the file and sname fields too, for parts that
// may be carried there):
//
//   - a mandatory part goes in the options field, whatever its room;
//   - any other part goes whole in the first field with room for it;
//   - a list that fits in no one field whole is spread over the fields in
//     RFC 3396 order, as many entries in each as its room holds, so that
//     its instances concatenate to a prefix of the list; entries never
//     straddle two fields, so a client that reads only one instance still
//     reads whole entries;
//   - anything else is dropped.
//
// It places into dst's array when it has room for every part (fit passes
// one on its stack), so that it does not allocate.
func pack(dst packing, parts []part, room [numFields]int, fields int) packing {
	var p packing
	if cap(dst) >= len(parts) {
		p = dst[:len(parts)]
		clear(p)
	} else {
		p = make(packing, len(parts))
	}
	for i, pt := range parts {
		cost := optionCost(len(pt.data))
		if pt.mandatory {
			p[i].add(segment{fieldOptions, 0, pt.n})
			room[fieldOptions] -= cost
			continue
		}
		allowed := 1
		if pt.overload {
			allowed = fields
		}
		for f := range allowed {
			if cost <= room[f] {
				p[i].add(segment{f, 0, pt.n})
				room[f] -= cost
				break
			}
		}
		if p[i].kept > 0 || !pt.list() {
			continue
		}
		for f := 0; f < allowed && p[i].kept < pt.n; f++ {
			from := p[i].kept
			if to := mostThatFit(pt, from, room[f]); to > from {
				p[i].add(segment{f, from, to})
				room[f] -= optionCost(len(pt.bytesOf(from, to)))
			}
		}
	}
	return p
}

// mostThatFit is the largest to in [from, pt.n] such that entries [from,
// to) of the list pt fit in room bytes; from when none does. The
// encodings grow with the entries, so it is a binary search.
func mostThatFit(pt part, from, room int) int {
	lo, hi := from, pt.n // the answer is in [lo, hi]
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if optionCost(len(pt.bytesOf(from, mid))) <= room {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// better reports whether a keeps more than b by the priority order: the
// first part whose kept entries differ decides.
func (a packing) better(b packing) bool {
	for i := range a {
		if a[i].kept != b[i].kept {
			return a[i].kept > b[i].kept
		}
	}
	return false
}

// overload is the value of the option overload option for a: bit 1 when a
// uses the file field, bit 2 when it uses the sname field.
func (a packing) overload() byte {
	var o byte
	for _, pl := range a {
		for _, s := range pl.segs[:pl.nsegs] {
			switch s.field {
			case fieldFile:
				o |= 1
			case fieldSname:
				o |= 2
			}
		}
	}
	return o
}

// fit sets resp's options to parts, in priority order, as many as fit in a
// DHCP message of limit bytes (see pack), and returns what it left out.
//
// Parts are placed in the options field first. When some do not fit there,
// fit also tries option overload (RFC 2132 section 9.3): the 3-byte option
// 52 in the options field, and up to 126 bytes of options in the file field
// and 62 in the sname field, which a reply leaves empty otherwise. It keeps
// the overloaded packing only if it keeps more by the priority order, so a
// reply that fits without overload never uses it, and a client that
// ignores overload still finds the mandatory options and the echoes in the
// options field.
func fit(resp *dhcpv4.DHCPv4, parts []part, limit int) Trim {
	t := Trim{Limit: limit}
	plain := [numFields]int{fieldOptions: limit - fixedLen - 1} // 1: the end option
	total := 0
	for _, pt := range parts {
		total += optionCost(len(pt.data))
	}
	if total <= plain[fieldOptions] { // everything fits: the common case
		for _, pt := range parts {
			resp.Options[pt.code] = pt.data
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
			t.Cuts = append(t.Cuts, Cut{Code: pt.code, Kept: p[i].kept, Of: pt.n})
		}
		for _, s := range p[i].segs[:p[i].nsegs] {
			v := pt.bytesOf(s.from, s.to)
			if s.field == fieldOptions {
				resp.Options[pt.code] = v
				continue
			}
			fields[s.field] = append(append(fields[s.field], pt.code, byte(len(v))), v...)
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
