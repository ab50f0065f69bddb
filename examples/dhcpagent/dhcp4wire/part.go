package dhcp4wire

// Part is one option of a reply as [Fit] places it: a value of entries
// that Fit may cut to its first ones. Make one with [Whole], or take a
// lease's from an [OptionCache]; Data may be replaced by a copy of itself
// (the entries' offsets stay valid), never changed in place when the part
// came from a cache, which shares it with other replies.
type Part struct {
	Code uint8
	Data []byte // the whole value
	// Mandatory parts are kept whatever the limit, in the options field.
	Mandatory bool
	// Overload parts may be carried in the file or sname field.
	Overload bool

	n      int   // entries; 1 for an option kept or dropped whole
	stride int   // bytes per entry of a list of fixed-size entries
	ends   []int // or, for a list of other entries, where each ends: entry i is data[ends[i]:ends[i+1]]
}

// Whole is the part of option code with value v, kept or dropped whole.
func Whole(code uint8, v []byte) Part {
	return Part{Code: code, Data: v, n: 1}
}

// list reports whether pt may be cut short.
func (pt Part) list() bool { return pt.stride > 0 || pt.ends != nil }

// offset is where entry k of pt starts (k <= pt.n).
func (pt Part) offset(k int) int {
	switch {
	case pt.stride > 0:
		return k * pt.stride
	case pt.ends != nil:
		return pt.ends[k]
	case k == 0:
		return 0
	}
	return len(pt.Data)
}

// bytesOf is the encoding of entries [from, to) of pt: a list's value is
// the concatenation of its entries.
func (pt Part) bytesOf(from, to int) []byte {
	return pt.Data[pt.offset(from):pt.offset(to)]
}

// optionCost is the bytes a value of n bytes takes in a message: a code
// and a length byte per instance of at most 255 bytes (RFC 3396).
func optionCost(n int) int {
	if n == 0 {
		return 2
	}
	return n + 2*((n+254)/255)
}
