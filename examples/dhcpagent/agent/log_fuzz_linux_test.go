package agent

import (
	"errors"
	"net/netip"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// perPacketKinds is how many kinds of level-0 line a DHCPv6 message can
// cause: DECLINE, RELEASE, probation lifted, send failed or dropped,
// unlisted relay, oversized reply. Each is limited to logBurst a minute.
const perPacketKinds = 6

// FuzzHandle6Log: whatever a host on the link sends, from whatever source,
// through a socket that accepts or refuses, the agent's level-0 log under
// a clock that does not move holds at most perPacketKinds x logBurst
// lines beyond its table load, each one line of valid UTF-8 without a
// control character, under 1,000 bytes. One agent takes every input of
// the run, so the bound holds over the whole stream, not per message.
func FuzzHandle6Log(f *testing.F) {
	for _, seed := range [][]byte{
		message6(dhcp6wire.Solicit, nil, 1),
		message6(dhcp6wire.Request, lab6DUID, 1),
		message6(dhcp6wire.Decline, lab6DUID, 1),
		message6(dhcp6wire.Release, lab6DUID, 1),
		message6(dhcp6wire.Request, lab6DUID, 200),
		relayed6(f, message6(dhcp6wire.Solicit, nil, 1)),
		{1, 0xab, 0xcd, 0xef, 0, 1, 0, 0x0a, 0, 3, 0, 1, 0, 0, 0x5e, 0, 0x53, 2, 0, 3, 0, 0x0c, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0},
		{12, 1},
		nil,
	} {
		for src := range 4 {
			f.Add(seed, uint8(src), src%2 == 0)
		}
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	logs := &logtest.Buffer{}
	a := newAgent6(f, logs, &now)
	loaded := strings.Count(logs.String(), "\n")
	s := newScratch6()
	sources := []string{"fe80::5054:ff:feaa:1", "2001:db8:30::99", "2001:db8:30::66", "ff02::1"}
	header := regexp.MustCompile(`^[IWE]\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ \S+:\d+\] "`)
	f.Fuzz(func(t *testing.T, payload []byte, src uint8, fail bool) {
		conn := &backlogConn{capacity: 100}
		if fail {
			conn.fail = errors.New("sendto: no buffer space available")
		}
		peer := netip.AddrPortFrom(netip.MustParseAddr(sources[int(src)%len(sources)]), 546)
		arr := dhcp6.Arrival{Source: peer.Addr(), FrameMAC: leasestore.MustParseMAC(lab6MAC), HasFrame: true}
		w := out6{frames: conn}
		if src&4 != 0 { // through the UDP socket, as a relay or a unicasting client sends
			arr, w = dhcp6.Arrival{Source: peer.Addr(), Unicast: true}, out6{conn: conn}
		}
		a.handle6(s, w, payload, arr, peer, "eth0")
		log := logs.String()
		lines := strings.Split(strings.TrimSuffix(log, "\n"), "\n")
		if extra := len(lines) - loaded; extra > perPacketKinds*logBurst {
			t.Fatalf("%d level-0 lines after the load, want at most %d:\n%s", extra, perPacketKinds*logBurst, log)
		}
		for _, line := range lines[loaded:] {
			if !header.MatchString(line) || len(line) > 1000 || !utf8.ValidString(line) {
				t.Fatalf("not one bounded log line: %q", line)
			}
			for _, r := range line {
				if unicode.IsControl(r) {
					t.Fatalf("control character %U in %q", r, line)
				}
			}
		}
	})
}
