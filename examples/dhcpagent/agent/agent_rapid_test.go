package agent

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"pgregory.net/rapid"
)

// The model: the lease table is a plain map from MAC to address, and the
// reply a plain reading of RFC 2131 section 4.3.
type modelReply struct {
	kind string // "OFFER", "ACK", "NAK", or "" for silence
	addr netip.Addr
}

func (m modelReply) String() string { return m.kind + " " + m.addr.String() }

// modelPrefix is the lab pool's prefix: the agent answers REQUESTs and
// INFORMs for addresses inside it whoever sends them.
var modelPrefix = netip.MustParsePrefix("10.77.0.0/24")

// held maps each address on probation to the MAC that declined it.
func modelRespond(table map[string]netip.Addr, held map[netip.Addr]string, mac string, typ dhcpv4.MessageType, sid, requested, ciaddr netip.Addr) modelReply {
	lease, ok := table[mac]
	switch typ {
	case dhcpv4.MessageTypeInform:
		if ciaddr.IsValid() && modelPrefix.Contains(ciaddr) {
			return modelReply{"ACK", netip.IPv4Unspecified()}
		}
	case dhcpv4.MessageTypeDiscover:
		if _, h := held[lease]; ok && !h {
			return modelReply{"OFFER", lease}
		}
	case dhcpv4.MessageTypeRequest:
		if sid.IsValid() && sid != dhcp4test.ServerIP {
			return modelReply{}
		}
		asked := requested
		if !asked.IsValid() {
			asked = ciaddr
		}
		switch {
		case !asked.IsValid():
		case !ok && !modelPrefix.Contains(asked):
		case ok && asked == lease && (held[lease] == "" || held[lease] == mac):
			// Held after a decline in this MAC's name: the REQUEST disproves it.
			return modelReply{"ACK", lease}
		default:
			return modelReply{"NAK", netip.IPv4Unspecified()}
		}
	}
	return modelReply{}
}

// TestAgentMatchesModel runs random sequences of pool loads and client requests
// against the agent and the model: every reply (or silence) must match.
func TestAgentMatchesModel(t *testing.T) {
	macs := make([]string, 10)
	for i := range macs {
		macs[i] = fmt.Sprintf("52:54:00:dd:00:%02x", i)
	}
	addrs := make([]netip.Addr, 12) // 10.77.0.10 .. 10.77.0.21
	for i := range addrs {
		addrs[i] = netip.AddrFrom4([4]byte{10, 77, 0, byte(10 + i)})
	}
	genAddr := rapid.SampledFrom(append(addrs, netip.MustParseAddr("192.168.1.7")))
	maybe := func(t *rapid.T, g *rapid.Generator[netip.Addr], label string) netip.Addr {
		if rapid.Bool().Draw(t, label+" set") {
			return g.Draw(t, label)
		}
		return netip.Addr{}
	}

	const period, window = time.Minute, 20 * time.Second
	rapid.Check(t, func(t *rapid.T) {
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		a := New(nil, WithLogger(quietLogger()), WithProbation(period), WithDeclineWindow(window), WithClock(func() time.Time { return now }))
		model := map[string]netip.Addr{}
		until := map[netip.Addr]time.Time{}   // declined addresses and the end of their probation
		by := map[netip.Addr]string{}         // and who declined them
		boundAt := map[netip.Addr]time.Time{} // the last ACK of a REQUEST with ciaddr zero
		heldNow := func() map[netip.Addr]string {
			h := map[netip.Addr]string{}
			for addr, u := range until {
				if now.Before(u) {
					h[addr] = by[addr]
				}
			}
			return h
		}
		if _, err := a.Apply(labtest.Pool(nil)); err != nil {
			t.Fatal(err)
		}
		t.Repeat(map[string]func(*rapid.T){
			"load": func(t *rapid.T) {
				// A random one-to-one allocation of some MACs to some addresses.
				perm := rapid.Permutation(addrs).Draw(t, "addresses")
				n := rapid.IntRange(0, len(macs)).Draw(t, "leases")
				alloc := map[string]string{}
				next := map[string]netip.Addr{}
				for i, mac := range rapid.Permutation(macs).Draw(t, "macs")[:n] {
					alloc[perm[i].String()] = mac
					next[mac] = perm[i]
				}
				u, err := a.Apply(labtest.Pool(alloc))
				if err != nil || len(u.Problems) > 0 {
					t.Fatalf("Apply: %v, problems %v", err, u.Problems)
				}
				model = next
			},
			"request": func(t *rapid.T) {
				mac := rapid.SampledFrom(append(macs, dhcp4test.MACUnknown)).Draw(t, "mac")
				typ := rapid.SampledFrom([]dhcpv4.MessageType{
					dhcpv4.MessageTypeDiscover, dhcpv4.MessageTypeDiscover,
					dhcpv4.MessageTypeDiscover, dhcpv4.MessageTypeRequest, dhcpv4.MessageTypeRequest,
					dhcpv4.MessageTypeRelease, dhcpv4.MessageTypeInform,
				}).Draw(t, "type")
				sid := maybe(t, rapid.SampledFrom([]netip.Addr{dhcp4test.ServerIP, netip.MustParseAddr("10.77.0.254")}), "server id")
				requested := maybe(t, genAddr, "requested")
				ciaddr := maybe(t, genAddr, "ciaddr")

				var mods []dhcpv4.Modifier
				if sid.IsValid() {
					mods = append(mods, dhcpv4.WithOption(dhcpv4.OptServerIdentifier(dhcp4test.NetIP(sid))))
				}
				if requested.IsValid() {
					mods = append(mods, dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(dhcp4test.NetIP(requested))))
				}
				if ciaddr.IsValid() {
					mods = append(mods, dhcpv4.WithClientIP(dhcp4test.NetIP(ciaddr)))
				}
				resp, err := a.Respond(dhcp4test.Message(t, mac, typ, mods...))

				want := modelRespond(model, heldNow(), mac, typ, sid, requested, ciaddr)
				if typ == dhcpv4.MessageTypeRequest && want.kind == "ACK" {
					delete(until, want.addr) // lifted, if it was held
					if !ciaddr.IsValid() {
						boundAt[want.addr] = now
					}
				}
				var got modelReply
				if resp != nil {
					yi, _ := netip.AddrFromSlice(resp.YourIPAddr.To4())
					got = modelReply{resp.MessageType().String(), yi}
				}
				if got != want {
					t.Fatalf("%s from %s (server id %v, requested %v, ciaddr %v): got %v (%v), model %v",
						typ, mac, sid, requested, ciaddr, got, err, want)
				}
				if resp != nil && (resp.TransactionID != dhcp4test.XID || resp.ClientHWAddr.String() != mac) {
					t.Fatalf("reply for xid %s to %s", resp.TransactionID, resp.ClientHWAddr)
				}
			},
			"decline": func(t *rapid.T) {
				mac := rapid.SampledFrom(append(macs, dhcp4test.MACUnknown)).Draw(t, "mac")
				sid := maybe(t, rapid.SampledFrom([]netip.Addr{dhcp4test.ServerIP, netip.MustParseAddr("10.77.0.254")}), "server id")
				requested := maybe(t, genAddr, "requested")
				if lease, ok := model[mac]; ok && rapid.Bool().Draw(t, "own address") {
					requested = lease // what a client declines, and a spoofer names
				}
				mods := []dhcpv4.Modifier{}
				if sid.IsValid() {
					mods = append(mods, dhcpv4.WithOption(dhcpv4.OptServerIdentifier(dhcp4test.NetIP(sid))))
				}
				if requested.IsValid() {
					mods = append(mods, dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(dhcp4test.NetIP(requested))))
				}
				before := a.Stats(now).Declines
				a.decline(dhcp4test.Message(t, mac, dhcpv4.MessageTypeDecline, mods...), now)
				accepted := a.Stats(now).Declines > before
				lease, ok := model[mac]
				// Within the window after an ACK that bound the address, to the second.
				b, wasBound := boundAt[lease]
				recent := wasBound && now.Unix()-b.Unix() <= int64(window/time.Second)
				want := ok && requested == lease && (!sid.IsValid() || sid == dhcp4test.ServerIP) && recent
				if accepted != want {
					t.Fatalf("DECLINE of %v from %s (server id %v): accepted %v, model %v", requested, mac, sid, accepted, want)
				}
				if want {
					until[lease], by[lease] = now.Add(period), mac
				}
			},
			"time passes": func(t *rapid.T) {
				now = now.Add(rapid.SampledFrom([]time.Duration{time.Second, window - time.Second, window, window + time.Second,
					period - time.Nanosecond, period}).Draw(t, "step"))
			},
			"": func(t *rapid.T) {
				if got := a.Table().Len(); got != len(model) {
					t.Fatalf("table has %d leases, model %d", got, len(model))
				}
				if got, want := a.Probation().Len(now), len(heldNow()); got != want {
					t.Fatalf("%d addresses on probation, model %d", got, want)
				}
			},
		})
	})
}
