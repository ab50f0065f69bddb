package agent

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"pgregory.net/rapid"
)

// The model: the lease table is a plain map from MAC to address, and the
// reply a plain reading of RFC 2131 section 4.3.
type modelReply struct {
	kind string // "OFFER", "ACK", "NAK", or "" for silence
	addr netip.Addr
}

func (m modelReply) String() string { return m.kind + " " + m.addr.String() }

func modelRespond(table map[string]netip.Addr, mac string, typ dhcpv4.MessageType, sid, requested, ciaddr netip.Addr) modelReply {
	lease, ok := table[mac]
	if !ok {
		return modelReply{}
	}
	switch typ {
	case dhcpv4.MessageTypeDiscover:
		return modelReply{"OFFER", lease}
	case dhcpv4.MessageTypeRequest:
		if sid.IsValid() && sid != serverIP {
			return modelReply{}
		}
		asked := requested
		if !asked.IsValid() {
			asked = ciaddr
		}
		switch {
		case !asked.IsValid():
			return modelReply{}
		case asked == lease:
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

	rapid.Check(t, func(t *rapid.T) {
		a := New(quietLogger())
		model := map[string]netip.Addr{}
		if _, err := a.Apply(labPool(nil)); err != nil {
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
				u, err := a.Apply(labPool(alloc))
				if err != nil || len(u.Problems) > 0 {
					t.Fatalf("Apply: %v, problems %v", err, u.Problems)
				}
				model = next
			},
			"request": func(t *rapid.T) {
				mac := rapid.SampledFrom(append(macs, macUnknown)).Draw(t, "mac")
				typ := rapid.SampledFrom([]dhcpv4.MessageType{
					dhcpv4.MessageTypeDiscover, dhcpv4.MessageTypeRequest, dhcpv4.MessageTypeRequest,
					dhcpv4.MessageTypeRelease, dhcpv4.MessageTypeInform,
				}).Draw(t, "type")
				sid := maybe(t, rapid.SampledFrom([]netip.Addr{serverIP, netip.MustParseAddr("10.77.0.254")}), "server id")
				requested := maybe(t, genAddr, "requested")
				ciaddr := maybe(t, genAddr, "ciaddr")

				var mods []dhcpv4.Modifier
				if sid.IsValid() {
					mods = append(mods, dhcpv4.WithOption(dhcpv4.OptServerIdentifier(netIP(sid))))
				}
				if requested.IsValid() {
					mods = append(mods, dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(netIP(requested))))
				}
				if ciaddr.IsValid() {
					mods = append(mods, dhcpv4.WithClientIP(netIP(ciaddr)))
				}
				resp, err := a.Respond(msg(t, mac, typ, mods...))

				want := modelRespond(model, mac, typ, sid, requested, ciaddr)
				var got modelReply
				if resp != nil {
					yi, _ := netip.AddrFromSlice(resp.YourIPAddr.To4())
					got = modelReply{resp.MessageType().String(), yi}
				}
				if got != want {
					t.Fatalf("%s from %s (server id %v, requested %v, ciaddr %v): got %v (%v), model %v",
						typ, mac, sid, requested, ciaddr, got, err, want)
				}
				if resp != nil && (resp.TransactionID != xid || resp.ClientHWAddr.String() != mac) {
					t.Fatalf("reply for xid %s to %s", resp.TransactionID, resp.ClientHWAddr)
				}
			},
			"": func(t *rapid.T) {
				if got := a.Table().Len(); got != len(model) {
					t.Fatalf("table has %d leases, model %d", got, len(model))
				}
			},
		})
	})
}
