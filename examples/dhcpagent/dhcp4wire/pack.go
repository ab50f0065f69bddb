package dhcp4wire

// Fields that carry options, in the order RFC 3396 concatenates them.
const (
	fieldOptions = iota
	fieldFile
	fieldSname
	numFields
)

// segment is entries [from, to) of a part, carried in one field.
type segment struct{ field, from, to int }

// placement is where Fit puts one part: its first kept entries, in the
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
// It places into dst's array when it has room for every part (Fit passes
// one on its stack), so that it does not allocate.
func pack(dst packing, parts []Part, room [numFields]int, fields int) packing {
	var p packing
	if cap(dst) >= len(parts) {
		p = dst[:len(parts)]
		clear(p)
	} else {
		p = make(packing, len(parts))
	}
	for i, pt := range parts {
		cost := optionCost(len(pt.Data))
		if pt.Mandatory {
			p[i].add(segment{fieldOptions, 0, pt.n})
			room[fieldOptions] -= cost
			continue
		}
		allowed := 1
		if pt.Overload {
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
func mostThatFit(pt Part, from, room int) int {
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
