package ipam

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/vmnetkit/vmnetkit/internal/errtext"
	"github.com/vmnetkit/vmnetkit/internal/hwaddr"
)

// OwnerKind says what a pool's owners are, and so which strings name the
// same owner. Every kind refuses an empty owner, the markers MarkerExcluded
// and MarkerReserved, and a string that is not valid UTF-8 (JSON would turn
// two such owners into one).
type OwnerKind uint8

const (
	// AnyOwner (the zero value) takes any other string as is: "vm-1" and
	// "VM-1" are two owners.
	AnyOwner OwnerKind = iota
	// MACOwners takes only 6-byte MAC addresses, in any spelling that
	// leasestore.ParseMAC accepts (52:54:00:aa:bb:cc, 52-54-00-AA-BB-CC,
	// 5254.00aa.bbcc, 525400aabbcc), and stores them in lowercase colon form:
	// every spelling of one MAC is one owner, for every method that takes an
	// owner. Anything else is refused with ErrInvalidOwner.
	MACOwners
)

// String returns "Any", "MAC" or "OwnerKind(n)".
func (k OwnerKind) String() string {
	switch k {
	case AnyOwner:
		return "Any"
	case MACOwners:
		return "MAC"
	}
	return "OwnerKind(" + strconv.Itoa(int(k)) + ")"
}

// ParseOwnerKind returns the OwnerKind that String names; "" is AnyOwner.
// Any other string is an error.
func ParseOwnerKind(s string) (OwnerKind, error) {
	switch s {
	case "", "Any":
		return AnyOwner, nil
	case "MAC":
		return MACOwners, nil
	}
	return 0, fmt.Errorf("ipam: ParseOwnerKind(%s): want %q or %q", errtext.Quote(s), "Any", "MAC")
}

// MarshalText implements encoding.TextMarshaler: the String form, or an
// error for an unknown kind.
func (k OwnerKind) MarshalText() ([]byte, error) {
	if k != AnyOwner && k != MACOwners {
		return nil, fmt.Errorf("ipam: marshal %v: unknown owner kind", k)
	}
	return []byte(k.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseOwnerKind.
func (k *OwnerKind) UnmarshalText(b []byte) error {
	v, err := ParseOwnerKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// canonical returns the form under which a pool of kind k stores owner, or
// an error wrapping ErrInvalidOwner that says why it cannot own an address.
// It allocates only to build an error or to re-spell a MAC.
func (k OwnerKind) canonical(owner string) (string, error) {
	switch {
	case owner == "":
		return "", fmt.Errorf("empty owner: %w", ErrInvalidOwner)
	case owner == MarkerExcluded || owner == MarkerReserved:
		return "", fmt.Errorf("%q is a status-map marker: %w", owner, ErrInvalidOwner)
	case !utf8.ValidString(owner):
		return "", fmt.Errorf("not valid UTF-8: %w", ErrInvalidOwner)
	case k != MACOwners:
		return owner, nil
	}
	var buf [17]byte
	b, ok := canonicalMAC(owner, &buf)
	if !ok {
		return "", fmt.Errorf("not a MAC address: %w", ErrInvalidOwner)
	}
	if string(b) == owner {
		return owner, nil
	}
	return string(b), nil
}

// lookupKey returns the key under which a pool of kind k finds owner, and
// false if no owner of that spelling can exist. Its result may alias buf:
// it is meant for map look-ups (m[string(key)] does not allocate).
func (k OwnerKind) lookupKey(owner string, buf *[17]byte) ([]byte, bool) {
	if k != MACOwners {
		return nil, false
	}
	return canonicalMAC(owner, buf)
}

// canonicalMAC writes s as a lowercase colon-form MAC into buf.
func canonicalMAC(s string, buf *[17]byte) ([]byte, bool) {
	var mac [6]byte
	if n, err := hwaddr.Parse(s, mac[:]); err != nil || n != 6 {
		return nil, false
	}
	return hwaddr.AppendColon(buf[:0], mac), true
}
