package readiness

import (
	"errors"
	"strconv"
)

// Sentinel errors, for errors.Is. [ParseDevice] and [ParseStaticAddr] wrap
// them with the operation and the quoted input; Verdict.Problems wrap them
// with the device.
var (
	// ErrUnknownType: a device type string that is not one of the Type
	// constants, exactly (types are case-sensitive).
	ErrUnknownType = errors.New("unknown device type")
	// ErrInvalidMAC: a MAC that is not 6 bytes in one of the accepted forms.
	ErrInvalidMAC = errors.New("invalid MAC address")
	// ErrDuplicateMAC: two devices with the same MAC.
	ErrDuplicateMAC = errors.New("duplicate MAC address")
	// ErrInvalidStatic: a static address that cannot be a VM's address
	// (unparsable, zero, zoned, IPv4-mapped IPv6, or one of the unusable
	// addresses the package doc's table lists: unspecified, this network,
	// loopback, link-local, multicast, broadcast).
	ErrInvalidStatic = errors.New("invalid static address")
	// ErrDuplicateStatic: a static address listed twice, on one device or
	// on two.
	ErrDuplicateStatic = errors.New("duplicate static address")
	// ErrStaticWithDHCP: a static address of a family the device also asks
	// DHCP for; it is unclear whether DHCP must still deliver one.
	ErrStaticWithDHCP = errors.New("static address of a family the device asks DHCP for")
	// ErrStaticNotAllowed: [ParseDevice] got a static address the type does
	// not allow (any for "NONE", IPv6 for "IPV4", IPv4 for "IPV6").
	ErrStaticNotAllowed = errors.New("static address not allowed by the device type")
	// ErrMissingStatic: [ParseDevice] got a static type without the static
	// addresses it needs.
	ErrMissingStatic = errors.New("static address missing")
)

// Problem is one reason a spec is invalid: the device it concerns and the
// error, which wraps one of the sentinel errors.
type Problem struct {
	Device int
	Err    error
}

// Error returns "nic <index>: <error>".
func (p Problem) Error() string { return "nic " + strconv.Itoa(p.Device) + ": " + p.Err.Error() }

// Unwrap returns p.Err, so that errors.Is(p, ErrDuplicateMAC) works.
func (p Problem) Unwrap() error { return p.Err }
