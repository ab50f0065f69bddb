package dhcp4

import (
	"github.com/insomniacslk/dhcp/dhcpv4"
)

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
