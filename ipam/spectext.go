package ipam

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"

	"github.com/vmnetkit/vmnetkit/internal/errtext"
)

// SpecText is a Spec in the strings a custom resource's spec holds, the one
// declarative form that every adapter translates through:
//
//	{"cidr": "10.20.0.0/24", "start": "10.20.0.10", "end": "10.20.0.200",
//	 "exclude": ["10.20.0.50-10.20.0.59", "10.20.0.77", "10.20.0.128/28"],
//	 "reserved": ["10.20.0.2", "10.20.0.1"], "strategy": "Sequential", "owners": "MAC"}
//
// Its zero value does not parse (CIDR is required). Use Parse to get the
// Spec and Spec.Text for the way back.
type SpecText struct {
	CIDR     string   `json:"cidr"`               // required, canonical: 10.20.0.0/24, fd00:1::/64
	Start    string   `json:"start,omitempty"`    // first allocatable address; "": the first usable
	End      string   `json:"end,omitempty"`      // last allocatable address; "": the last usable
	Exclude  []string `json:"exclude,omitempty"`  // ranges in the forms of ParseRange
	Reserved []string `json:"reserved,omitempty"` // addresses never handed out (server, router)
	Strategy string   `json:"strategy,omitempty"` // "Lowest" (or "") or "Sequential"
	Owners   string   `json:"owners,omitempty"`   // "Any" (or "") or "MAC"

	// AllocateSubnetEnds is Spec.AllocateSubnetEnds: the IPv4 network and
	// broadcast addresses and the IPv6 subnet-router anycast address are
	// handed out too.
	AllocateSubnetEnds bool `json:"allocateSubnetEnds,omitempty"`
}

// Parse returns the Spec t describes, or an error wrapping ErrInvalidSpec
// that names each bad field, with its index in a list, and quotes its value
// as written:
//
//	ipam: spec exclude[2] "10.20.0.77/24": prefix has host bits set (want 10.20.0.0/24): invalid address: invalid spec
//
// Every field is checked; the error joins one *FieldError per bad field
// (each wraps ErrInvalidSpec, and ErrInvalidAddr too when an address did
// not parse), so an adapter can name the field as its users wrote it.
// Addresses follow the text rule (see ParseAddr); Exclude takes the forms
// of ParseRange, exactly. A Reserved address outside CIDR, of either
// family, is left out: it could never be handed out, so there is nothing
// to reserve (a router or DHCP server on another subnet reached through a
// relay, or a dual-stack router's address of the other family). Reserved
// may name an address twice (a server that is also the router). When
// every field parses, the Spec is checked as New checks it
// (Spec.Validate), and what that finds is a *FieldError too, naming the
// field and quoting its text as t holds it: an exclude outside CIDR, a
// start after the end, an end that is not a usable address.
func (t SpecText) Parse() (Spec, error) {
	s := Spec{AllocateSubnetEnds: t.AllocateSubnetEnds}
	var errs []error
	bad := func(field string, i int, value string, err error) {
		if i >= 0 {
			field += "[" + strconv.Itoa(i) + "]"
		}
		errs = append(errs, &FieldError{Field: field, Value: value, Err: err})
	}

	switch r, err := parseRange(t.CIDR, anyFamily); {
	case t.CIDR == "":
		bad("cidr", -1, t.CIDR, errRequired)
	case !strings.Contains(t.CIDR, "/"):
		bad("cidr", -1, t.CIDR, errors.New("not a prefix (want address/length)"))
	case err != nil:
		bad("cidr", -1, t.CIDR, err)
	default:
		s.Prefix, _ = r.Prefix()
	}
	fam := familyOf(s.Prefix)
	addr := func(field string, i int, value string) netip.Addr {
		if value == "" {
			return netip.Addr{}
		}
		a, err := parseAddr(value, fam)
		if err != nil {
			bad(field, i, value, err)
		}
		return a
	}
	s.Start = addr("start", -1, t.Start)
	s.End = addr("end", -1, t.End)
	for i, e := range t.Exclude {
		r, err := parseRange(e, fam)
		if err != nil {
			bad("exclude", i, e, err)
			continue
		}
		s.Exclude = append(s.Exclude, r)
	}
	for i, v := range t.Reserved {
		a := addr("reserved", i, v)
		if !a.IsValid() {
			continue
		}
		if s.Prefix.IsValid() && !s.Prefix.Contains(a) {
			continue // outside the prefix (or of the other family): never handed out anyway
		}
		s.Reserved = append(s.Reserved, a)
	}
	var err error
	if s.Strategy, err = ParseStrategy(t.Strategy); err != nil {
		bad("strategy", -1, t.Strategy, errors.New(`want "Lowest" or "Sequential"`))
	}
	if s.Owners, err = ParseOwnerKind(t.Owners); err != nil {
		bad("owners", -1, t.Owners, errors.New(`want "Any" or "MAC"`))
	}
	if len(errs) > 0 {
		return Spec{}, errors.Join(errs...)
	}
	if err := s.Validate(); err != nil {
		// Every field parsed, so s.Exclude is index-aligned with
		// t.Exclude: name the field as t names it, with its text. (A
		// Reserved address that parsed and is inside the prefix, and a
		// Strategy and Owners that parsed, are valid.)
		fe, ok := err.(*FieldError)
		if !ok {
			return Spec{}, err
		}
		field, i := fe.Field, -1
		if name, idx, ok := strings.Cut(strings.TrimSuffix(field, "]"), "["); ok {
			field, i = name, atoi(idx)
		}
		var value string
		switch field {
		case "cidr":
			value = t.CIDR
		case "start":
			value = t.Start
		case "end":
			value = t.End
		case "exclude":
			value = t.Exclude[i]
		default:
			return Spec{}, err
		}
		bad(field, i, value, fe.Err)
		return Spec{}, errs[0]
	}
	return s, nil
}

// atoi returns the index i wrote as a decimal, which it is.
func atoi(s string) int {
	i, _ := strconv.Atoi(s)
	return i
}

// Text returns s as a SpecText, which Parse turns back into s for a valid
// Spec (an empty Exclude or Reserved list comes back nil). Strategy and
// Owners are written only when not the zero value. An invalid Spec is
// written as well as it can be; Parse then reports why.
// AllocateSubnetEnds is copied as is.
func (s Spec) Text() SpecText {
	t := SpecText{}
	if s.Prefix.IsValid() {
		t.CIDR = s.Prefix.String()
	}
	if s.Start.IsValid() {
		t.Start = s.Start.String()
	}
	if s.End.IsValid() {
		t.End = s.End.String()
	}
	for _, r := range s.Exclude {
		t.Exclude = append(t.Exclude, FormatRange(r))
	}
	for _, a := range s.Reserved {
		t.Reserved = append(t.Reserved, a.String())
	}
	if s.Strategy != Lowest {
		t.Strategy = s.Strategy.String()
	}
	if s.Owners != AnyOwner {
		t.Owners = s.Owners.String()
	}
	t.AllocateSubnetEnds = s.AllocateSubnetEnds
	return t
}

// FieldError is one bad field of a SpecText or an AddressList, as their
// Parse reports it, or of a Spec, as Spec.Validate reports it (named as
// SpecText names the field the value is written to).
type FieldError struct {
	Field string // the JSON name, with the index in a list: "cidr", "exclude[2]", "reserved[0]", "addresses[3]"
	Value string // the value as given (the caller's string, not a copy); for a Spec, as its String method writes it
	Err   error  // why; wraps ErrInvalidAddr when an address did not parse
}

// Error returns "ipam: spec <field> <quoted value>: <why>: invalid spec".
// The value is quoted by the package's rule for errors (at most a few
// hundred bytes, whatever its length), so the text of a FieldError is
// bounded whatever the input.
func (e *FieldError) Error() string {
	return "ipam: spec " + e.Field + " " + errtext.Quote(e.Value) + ": " + e.Err.Error() + ": " + ErrInvalidSpec.Error()
}

// Unwrap returns e.Err and ErrInvalidSpec, for errors.Is.
func (e *FieldError) Unwrap() []error { return []error{e.Err, ErrInvalidSpec} }

// FieldErrors returns the *FieldErrors in err (an error of SpecText.Parse,
// AddressList.Parse or Spec.Validate), in field order.
func FieldErrors(err error) []*FieldError {
	var out []*FieldError
	var walk func(error)
	walk = func(err error) {
		if fe, ok := err.(*FieldError); ok {
			out = append(out, fe)
			return
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
		}
	}
	walk(err)
	return out
}
