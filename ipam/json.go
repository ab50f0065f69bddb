package ipam

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"unicode/utf8"

	"github.com/vmnetkit/vmnetkit/internal/errtext"
)

// MarshalJSON implements json.Marshaler: s as its SpecText. An invalid
// Spec is an error (it could not be read back).
func (s Spec) MarshalJSON() ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return json.Marshal(s.Text())
}

// UnmarshalJSON implements json.Unmarshaler: a SpecText, parsed by
// SpecText.Parse.
func (s *Spec) UnmarshalJSON(b []byte) error {
	var t SpecText
	if err := json.Unmarshal(b, &t); err != nil {
		return err
	}
	v, err := t.Parse()
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// allocationJSON is Allocation's JSON form.
type allocationJSON struct {
	Addr  string `json:"addr"`
	Owner string `json:"owner"`
}

// MarshalJSON implements json.Marshaler: {"addr": "10.0.0.5", "owner":
// "52:54:00:aa:bb:cc"}. An owner that is not valid UTF-8 is an error
// wrapping ErrInvalidOwner: JSON would change it.
func (a Allocation) MarshalJSON() ([]byte, error) {
	if !utf8.ValidString(a.Owner) {
		return nil, fmt.Errorf("ipam: marshal allocation of %s: owner %s is not valid UTF-8: %w", a.Addr, errtext.Quote(a.Owner), ErrInvalidOwner)
	}
	addr := ""
	if a.Addr.IsValid() {
		addr = a.Addr.String()
	}
	return json.Marshal(allocationJSON{addr, a.Owner})
}

// UnmarshalJSON implements json.Unmarshaler. The address follows the text
// rule (see ParseAddr); "" is the zero Addr. Whether the pool can keep the
// allocation is Restore's to say.
func (a *Allocation) UnmarshalJSON(b []byte) error {
	var v allocationJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	var addr netip.Addr
	if v.Addr != "" {
		var err error
		if addr, err = ParseAddr(v.Addr); err != nil {
			return err
		}
	}
	*a = Allocation{addr, v.Owner}
	return nil
}

// snapshotJSON is Snapshot's JSON form.
type snapshotJSON struct {
	Spec        Spec         `json:"spec"`
	Allocations []Allocation `json:"allocations"`
}

// MarshalJSON implements json.Marshaler:
//
//	{"spec": {"cidr": "10.0.0.0/24", ...}, "allocations": [{"addr": "10.0.0.1", "owner": "vm-1"}]}
//
// with the allocations in address order (then owner), whatever their order
// in s, so a snapshot marshals to the same bytes however it was built.
// Allocations is [] when empty. An invalid Spec or an owner that is not
// valid UTF-8 is an error.
func (s Snapshot) MarshalJSON() ([]byte, error) {
	allocs := slices.Clone(s.Allocations)
	if allocs == nil {
		allocs = []Allocation{}
	}
	slices.SortStableFunc(allocs, func(a, b Allocation) int {
		return cmp.Or(a.Addr.Compare(b.Addr), cmp.Compare(a.Owner, b.Owner))
	})
	return json.Marshal(snapshotJSON{s.Spec, allocs})
}

// UnmarshalJSON implements json.Unmarshaler for the form MarshalJSON
// writes. The result is what was written: Restore checks it.
func (s *Snapshot) UnmarshalJSON(b []byte) error {
	var v snapshotJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Snapshot(v)
	return nil
}
