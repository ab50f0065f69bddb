package packetsocket

import (
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
)

// TestWriteToErrors: what WriteTo refuses, each on a Socket of its own,
// and the largest datagram it sends.
func TestWriteToErrors(t *testing.T) {
	client := netip.MustParseAddrPort("[fe80::5054:ff:fe10:a]:546")
	for _, tc := range []struct {
		name    string
		before  func(t *testing.T, p *netnstest.Pair)            // before Listen
		after   func(t *testing.T, p *netnstest.Pair, s *Socket) // after
		payload int
		dst     netip.AddrPort
		err     error // nil: sent
	}{
		{name: "the largest payload", payload: maxPayload, dst: client},
		{name: "a byte too many", payload: maxPayload + 1, dst: client, err: ErrTooLarge},
		{name: "a zone is ignored", payload: 10, dst: netip.MustParseAddrPort("[fe80::5054:ff:fe10:a%nosuch0]:546")},
		{name: "IPv4", payload: 10, dst: netip.MustParseAddrPort("192.0.2.1:546"), err: errDestination},
		{name: "IPv4-mapped", payload: 10, dst: netip.MustParseAddrPort("[::ffff:192.0.2.1]:546"), err: errDestination},
		{name: "unspecified", payload: 10, dst: netip.MustParseAddrPort("[::]:546"), err: errDestination},
		{name: "port 0", payload: 10, dst: netip.MustParseAddrPort("[fe80::1]:0"), err: errDestination},
		{name: "no destination", payload: 10, err: errDestination},
		{name: "the interface's MTU is 1280", payload: 1300, dst: client, err: ErrTooLarge,
			after: func(t *testing.T, p *netnstest.Pair, _ *Socket) {
				netnstest.IP(t, "-n", p.ServerNS, "link", "set", "dev", p.ServerIf, "mtu", "1280")
			}},
		{name: "no link-local address", payload: 10, dst: client, err: ErrNoLinkLocal, before: noLinkLocal},
		{name: "closed", payload: 10, dst: client, err: net.ErrClosed,
			after: func(_ *testing.T, _ *netnstest.Pair, s *Socket) { s.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newSendHosts(t, "52:54:00:10:00:0a", tc.before)
			if tc.after != nil {
				tc.after(t, h.p, h.ps)
			}
			n, err := h.ps.WriteTo(make([]byte, tc.payload), tc.dst, h.mac)
			if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
				t.Fatalf("WriteTo: %v, want %v", err, tc.err)
			}
			want := 0
			if tc.err == nil {
				want = tc.payload
			}
			if n != want {
				t.Errorf("WriteTo returned %d, want %d", n, want)
			}
			t.Logf("%v", err) // the message, for who reads -v
		})
	}
}

// TestWriteToLinkLocalLater: a Socket whose interface had no link-local
// address at Listen refuses to send (ErrNoLinkLocal), and a second after
// the address is added, uses it.
func TestWriteToLinkLocalLater(t *testing.T) {
	h := newSendHosts(t, "52:54:00:10:00:0b", noLinkLocal)
	listened := time.Now()
	to := netip.AddrPortFrom(h.clientLL, 546)
	if _, err := h.ps.WriteTo([]byte("reply"), to, h.mac); !errors.Is(err, ErrNoLinkLocal) {
		t.Fatalf("WriteTo without a link-local address: %v, want ErrNoLinkLocal", err)
	}
	if ll := h.ps.LinkLocal(); ll.IsValid() {
		t.Fatalf("LinkLocal() = %v without one", ll)
	}
	ll := netip.MustParseAddr("fe80::5")
	netnstest.IP(t, "-n", h.p.ServerNS, "addr", "add", ll.String()+"/64", "dev", h.p.ServerIf, "nodad")
	// Within the second after Listen's look-up, WriteTo does not look.
	if _, err := h.ps.WriteTo([]byte("reply"), to, h.mac); time.Since(listened) < lookupEvery && !errors.Is(err, ErrNoLinkLocal) {
		t.Errorf("WriteTo within %v of the last look-up: %v, want ErrNoLinkLocal still", lookupEvery, err)
	}
	time.Sleep(lookupEvery)
	if _, err := h.ps.WriteTo([]byte("reply"), to, h.mac); err != nil {
		t.Fatalf("WriteTo a second after the address was added: %v", err)
	}
	if got := h.ps.LinkLocal(); got != ll {
		t.Errorf("LinkLocal() = %v, want %v", got, ll)
	}
	if payload, from := h.receive(t); payload != "reply" || from != netip.AddrPortFrom(ll, ServerPort) {
		t.Errorf("the client received %q from %s, want \"reply\" from %s", payload, from, netip.AddrPortFrom(ll, ServerPort))
	}
}
