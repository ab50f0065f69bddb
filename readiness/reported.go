package readiness

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/vmnetkit/vmnetkit/internal/errtext"
)

// ErrInvalidReported: [ParseReported] got text that is not an address in
// one of the forms hypervisors and guest agents report.
var ErrInvalidReported = errors.New("invalid reported address")

// ParseReported parses an address as hypervisors and guest agents report a
// NIC's addresses, to the netip.Addr [Evaluate] takes in NIC.Addrs:
//
//	10.0.0.5               an address
//	10.0.0.5/24            an address with its prefix length (checked, dropped)
//	fe80::1%eth0           an address with its zone (kept: Evaluate drops it)
//	fe80::1%eth0/64        both
//	::ffff:10.0.0.5        IPv4-mapped IPv6, returned as is (Evaluate unmaps)
//
// Spaces around the text are ignored. The address is not judged: an
// unusable one (link-local, loopback, ...) is returned, for Evaluate to
// list as ignored with why. Errors wrap [ErrInvalidReported] and quote the
// text, cut as the core cuts every quoted value (a few hundred bytes at
// most). It allocates only for an error or a zone.
func ParseReported(s string) (netip.Addr, error) {
	text := strings.TrimSpace(s)
	addr, bits, hasBits := strings.Cut(text, "/")
	// A space before the slash would end up in a zone ("fe80::1%eth0 /64"),
	// which then no longer reads back as itself.
	a, err := netip.ParseAddr(strings.TrimSpace(addr))
	if err != nil {
		return netip.Addr{}, reportedError(s, "not an address")
	}
	if hasBits {
		n, err := strconv.Atoi(bits)
		if err != nil || n < 0 || n > a.BitLen() || bits != strconv.Itoa(n) {
			return netip.Addr{}, reportedError(s, "bad prefix length")
		}
	}
	return a, nil
}

func reportedError(s, why string) error {
	return fmt.Errorf("readiness: parse reported address %s: %w: %s", errtext.Quote(s), ErrInvalidReported, why)
}
