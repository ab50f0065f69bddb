package packetsocket

import (
	"errors"
	"net/netip"
	"testing"
)

// TestCheckWrite: what WriteTo refuses before it looks at the socket
// (TestWriteToErrors has them through a Socket, as root).
func TestCheckWrite(t *testing.T) {
	client := netip.MustParseAddrPort("[fe80::1]:546")
	for _, tc := range []struct {
		name    string
		payload int
		dst     netip.AddrPort
		err     error
	}{
		{"the largest payload", maxPayload, client, nil},
		{"a byte too many", maxPayload + 1, client, ErrTooLarge},
		{"a global address", 10, netip.MustParseAddrPort("[2001:db8::1]:547"), nil},
		{"a multicast address", 10, netip.MustParseAddrPort("[ff02::1]:546"), nil},
		{"a zone", 10, netip.MustParseAddrPort("[fe80::1%eth0]:546"), nil},
		{"IPv4", 10, netip.MustParseAddrPort("192.0.2.1:546"), errDestination},
		{"IPv4-mapped", 10, netip.MustParseAddrPort("[::ffff:192.0.2.1]:546"), errDestination},
		{"unspecified", 10, netip.MustParseAddrPort("[::]:546"), errDestination},
		{"port 0", 10, netip.MustParseAddrPort("[fe80::1]:0"), errDestination},
		{"no destination", 10, netip.AddrPort{}, errDestination},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkWrite(make([]byte, tc.payload), tc.dst)
			if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
				t.Errorf("checkWrite: %v, want %v", err, tc.err)
			}
		})
	}
}
