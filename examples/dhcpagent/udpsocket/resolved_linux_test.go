package udpsocket

import (
	"net/netip"
	"testing"
)

// TestResolved: an IPv4 address is resolved once the kernel holds its
// link-layer address (the peer's, after an exchange), not while its
// discovery is under way or for an address nobody has; IPv6 addresses
// and a closed socket are never; it allocates nothing.
func TestResolved(t *testing.T) {
	v4 := stallCases[1]
	if v4.network != "udp4" {
		t.Fatalf("stallCases[1] is %s", v4.name)
	}
	l := v4.up(t)
	nowhere := l.nowhere(1).Addr()
	if l.s.Resolved(l.to.Addr()) {
		t.Errorf("the peer %s resolved before any exchange", l.to.Addr())
	}
	l.exchange(t, "resolve")
	if _, err := l.s.WriteToUDPAddrPort([]byte("x"), netip.AddrPortFrom(nowhere, 68)); err != nil {
		t.Fatal(err) // starts discovery of nowhere, which never completes
	}
	for _, tc := range []struct {
		name string
		addr netip.Addr
		want bool
	}{
		{"the peer, after an exchange", l.to.Addr(), true},
		{"the peer as an IPv4-mapped address", netip.AddrFrom16(l.to.Addr().As16()), true},
		{"an address under discovery", nowhere, false},
		{"an address never asked for", l.nowhere(2).Addr(), false},
		{"an address off the link", netip.MustParseAddr("192.0.2.1"), false},
		{"IPv6", netip.MustParseAddr("fe80::1"), false},
		{"the zero Addr", netip.Addr{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := l.s.Resolved(tc.addr); got != tc.want {
				t.Errorf("Resolved(%s) = %v, want %v", tc.addr, got, tc.want)
			}
		})
	}
	if n := testing.AllocsPerRun(100, func() { l.s.Resolved(l.to.Addr()) }); n != 0 {
		t.Errorf("Resolved allocates %v times, want 0", n)
	}
	l.s.Close()
	if l.s.Resolved(l.to.Addr()) {
		t.Error("Resolved after Close")
	}
}
