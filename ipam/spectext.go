package ipam

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
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
// that names each bad field, with its index in a list, and quotes its value:
//
//	ipam: spec exclude[2] "10.20.0.77/24": prefix has host bits set (want 10.20.0.0/24): invalid address: invalid spec
//
// Every field is checked; the error joins one *FieldError per bad field
// (each wraps ErrInvalidSpec, and ErrInvalidAddr too when an address did
// not parse), so an adapter can name the field as its users wrote it. Addresses follow
// the text rule (see ParseAddr). A Reserved address outside CIDR, of
// either family, is left out: it could never be handed out, so there is
// nothing to reserve (a router or DHCP server on another subnet reached
// through a relay, or a dual-stack router's address of the other family).
// Reserved may name an address twice (a server that is also the router).
// When every field parses, the Spec is checked as New checks it
// (Spec.Validate).
func (t SpecText) Parse() (Spec, error) {
	s := Spec{AllocateSubnetEnds: t.AllocateSubnetEnds}
	var errs []error
	bad := func(field, value string, err error) {
		errs = append(errs, &FieldError{Field: field, Value: value, Err: err})
	}
	addr := func(field, value string) netip.Addr {
		if value == "" {
			return netip.Addr{}
		}
		a, err := parseAddr(value)
		if err != nil {
			bad(field, value, err)
		}
		return a
	}

	switch r, err := parseRange(t.CIDR); {
	case t.CIDR == "":
		bad("cidr", t.CIDR, errRequired)
	case !strings.Contains(t.CIDR, "/"):
		bad("cidr", t.CIDR, errors.New("not a prefix (want address/length)"))
	case err != nil:
		bad("cidr", t.CIDR, err)
	default:
		s.Prefix, _ = r.Prefix()
	}
	s.Start = addr("start", t.Start)
	s.End = addr("end", t.End)
	for i, e := range t.Exclude {
		r, err := parseRange(e)
		if err != nil {
			bad(fmt.Sprintf("exclude[%d]", i), e, err)
			continue
		}
		s.Exclude = append(s.Exclude, r)
	}
	for i, v := range t.Reserved {
		a := addr(fmt.Sprintf("reserved[%d]", i), v)
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
		bad("strategy", t.Strategy, errors.New(`want "Lowest" or "Sequential"`))
	}
	if s.Owners, err = ParseOwnerKind(t.Owners); err != nil {
		bad("owners", t.Owners, errors.New(`want "Any" or "MAC"`))
	}
	if len(errs) > 0 {
		return Spec{}, errors.Join(errs...)
	}
	if err := s.Validate(); err != nil {
		return Spec{}, err
	}
	return s, nil
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

// FieldError is one bad field of a SpecText, as SpecText.Parse reports it.
type FieldError struct {
	Field string // SpecText's JSON name, with the index in a list: "cidr", "exclude[2]", "reserved[0]"
	Value string // the value as given
	Err   error  // why; wraps ErrInvalidAddr when an address did not parse
}

// Error returns "ipam: spec <field> <quoted value>: <why>: invalid spec".
func (e *FieldError) Error() string {
	return fmt.Sprintf("ipam: spec %s %q: %v: %v", e.Field, e.Value, e.Err, ErrInvalidSpec)
}

// Unwrap returns e.Err and ErrInvalidSpec, for errors.Is.
func (e *FieldError) Unwrap() []error { return []error{e.Err, ErrInvalidSpec} }

// FieldErrors returns the *FieldErrors in err (a SpecText.Parse error), in
// field order; none for an error that Spec.Validate found once every field
// parsed.
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
