package dhcp6wire_test

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
)

func TestDecodeCapturedClients(t *testing.T) {
	for _, tc := range []struct {
		file    string
		txid    [3]byte
		iaid    uint32
		oro     []dhcp6wire.OptionCode
		options []dhcp6wire.OptionCode // the codes kept verbatim
	}{
		{"dhclient-solicit.hex", [3]byte{0xda, 0xa7, 0x0b}, 0x123456, []dhcp6wire.OptionCode{23, 24, 39, 31}, nil},
		{"dhcpcd-solicit.hex", [3]byte{0xb9, 0x4e, 0x60}, 1, []dhcp6wire.OptionCode{23, 24, 82, 83}, []dhcp6wire.OptionCode{16}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var p dhcp6wire.Packet
			if err := dhcp6wire.Decode(&p, readHex(t, tc.file)); err != nil {
				t.Fatal(err)
			}
			m := &p.Msg
			if len(p.Relays) != 0 || m.Type != dhcp6wire.Solicit || m.TransactionID != tc.txid {
				t.Errorf("got %d relays, %s, xid %x", len(p.Relays), m.Type, m.TransactionID)
			}
			d, err := dhcp6wire.ParseDUID(m.ClientID)
			if err != nil || d.Type != dhcp6wire.DUIDLLT {
				t.Fatalf("client DUID %x: %+v, %v", m.ClientID, d, err)
			}
			if mac, ok := d.MAC(); !ok || mac != clientMAC {
				t.Errorf("DUID MAC = %x, %v; want %x", mac, ok, clientMAC)
			}
			if len(m.IANA) != 1 || m.IANA[0].IAID != tc.iaid || len(m.IANA[0].Addrs) != 0 {
				t.Errorf("IA_NA = %+v, want one of IAID %#x without address", m.IANA, tc.iaid)
			}
			if diff := cmp.Diff(tc.oro, m.ORO); diff != "" {
				t.Errorf("ORO (-want +got):\n%s", diff)
			}
			if !m.Requests(dhcp6wire.OptionDNSServers) || m.Requests(dhcp6wire.OptionRapidCommit) {
				t.Error("Requests disagrees with ORO")
			}
			if !m.HasElapsedTime || m.ServerID != nil || m.RapidCommit {
				t.Errorf("elapsed %v, server ID %x, rapid commit %v", m.HasElapsedTime, m.ServerID, m.RapidCommit)
			}
			var codes []dhcp6wire.OptionCode
			for _, o := range m.Options {
				codes = append(codes, o.Code)
			}
			if diff := cmp.Diff(tc.options, codes); diff != "" {
				t.Errorf("other options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	req := sampleRequest()
	reply := dhcp6wire.Message{
		Type:          dhcp6wire.Reply,
		TransactionID: [3]byte{1, 2, 3},
		ClientID:      req.ClientID,
		ServerID:      req.ServerID,
		IANA: []dhcp6wire.IANA{
			{IAID: 7, T1: 100, T2: 160, Addrs: []dhcp6wire.IAAddr{
				{Addr: netip.MustParseAddr("2001:db8:30::10"), Preferred: 200, Valid: 300},
				{Addr: netip.MustParseAddr("2001:db8:30::9"), Status: dhcp6wire.Status{Present: true, Code: dhcp6wire.NotOnLink, Message: []byte("moved")}},
			}},
			{IAID: 8, Status: dhcp6wire.Status{Present: true, Code: dhcp6wire.NoAddrsAvail}},
		},
		Status:     dhcp6wire.Status{Present: true, Code: dhcp6wire.Success, Message: []byte("ok")},
		DNS:        []netip.Addr{netip.MustParseAddr("2001:db8::53"), netip.MustParseAddr("2001:db8::54")},
		DomainList: mustDomains(t, "lab.example.com", "example.com."),
		Options:    []dhcp6wire.Option{{Code: dhcp6wire.OptionIAPD, Data: make([]byte, 12)}, {Code: 999, Data: []byte{}}},
	}
	relayed := sampleRequest()
	relayed.RapidCommit = true
	for _, tc := range []struct {
		name string
		p    dhcp6wire.Packet
	}{
		{"request", dhcp6wire.Packet{Msg: req}},
		{"reply with everything", dhcp6wire.Packet{Msg: reply}},
		{"two relays", dhcp6wire.Packet{
			Relays: []dhcp6wire.Relay{
				{Type: dhcp6wire.RelayForw, HopCount: 1, LinkAddr: netip.IPv6Unspecified(), PeerAddr: netip.MustParseAddr("2001:db8:1::2"),
					InterfaceID: []byte("outer"), Options: []dhcp6wire.Option{{Code: 37, Data: []byte{0, 0, 0, 9, 'r'}}}},
				{Type: dhcp6wire.RelayForw, LinkAddr: netip.MustParseAddr("2001:db8:30::1"), PeerAddr: netip.MustParseAddr("fe80::5054:ff:fe12:3456"),
					InterfaceID: []byte{}, LinkLayerType: 1, LinkLayerAddr: clientMAC[:]},
			},
			Msg: relayed,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := dhcp6wire.Append(nil, &tc.p)
			var got dhcp6wire.Packet
			if err := dhcp6wire.Decode(&got, b); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.p, got, equatePackets); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
			if again := dhcp6wire.Append(nil, &got); string(again) != string(b) {
				t.Errorf("re-encoded:\n%x\nfirst:\n%x", again, b)
			}
		})
	}
}

func TestDecodeRejects(t *testing.T) {
	valid := dhcp6wire.AppendMessage(nil, &dhcp6wire.Message{Type: dhcp6wire.Solicit})
	opt := func(code, n int, v ...byte) []byte {
		return append(append(append([]byte(nil), valid...), byte(code>>8), byte(code), byte(n>>8), byte(n)), v...)
	}
	relay := func(opts ...byte) []byte {
		return append(append([]byte{byte(dhcp6wire.RelayForw), 0}, make([]byte, 32)...), opts...)
	}
	deep := dhcp6wire.Append(nil, &dhcp6wire.Packet{Relays: make([]dhcp6wire.Relay, dhcp6wire.MaxRelays+1)})
	for i := 0; i < len(deep)-4; i += relayHeader + 4 {
		deep[i] = byte(dhcp6wire.RelayForw)
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, dhcp6wire.ErrShort},
		{"three bytes", []byte{1, 2, 3}, dhcp6wire.ErrShort},
		{"option header cut", append(valid, 0, 1, 0), dhcp6wire.ErrOptionLength},
		{"option longer than the message", opt(1, 10, 0, 1), dhcp6wire.ErrOptionLength},
		{"client ID of one byte", opt(1, 1, 0), dhcp6wire.ErrOptionSize},
		{"server ID of 131 bytes", opt(2, 131, make([]byte, 131)...), dhcp6wire.ErrOptionSize},
		{"IA_NA of 11 bytes", opt(3, 11, make([]byte, 11)...), dhcp6wire.ErrOptionSize},
		{"IAADDR of 23 bytes", opt(3, 39, append(make([]byte, 12), 0, 5, 0, 23)...), dhcp6wire.ErrOptionLength},
		{"ORO of odd length", opt(6, 3, 0, 23, 0), dhcp6wire.ErrOptionSize},
		{"elapsed time of 3 bytes", opt(8, 3, 0, 0, 0), dhcp6wire.ErrOptionSize},
		{"rapid commit with data", opt(14, 1, 0), dhcp6wire.ErrOptionSize},
		{"DNS of 15 bytes", opt(23, 15, make([]byte, 15)...), dhcp6wire.ErrOptionSize},
		{"status of 1 byte", opt(13, 1, 0), dhcp6wire.ErrOptionSize},
		{"relay header cut", relay()[:33], dhcp6wire.ErrShort},
		{"relay without RELAY_MSG", relay(0, 18, 0, 1, 'x'), dhcp6wire.ErrNoRelayMsg},
		{"relay with an empty RELAY_MSG", relay(0, 9, 0, 0), dhcp6wire.ErrShort},
		{"client link-layer of 1 byte", relay(0, 79, 0, 1, 1), dhcp6wire.ErrOptionSize},
		{"too many relays", deep, dhcp6wire.ErrTooManyRelays},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p dhcp6wire.Packet
			if err := dhcp6wire.Decode(&p, tc.b); !errors.Is(err, tc.want) {
				t.Errorf("Decode = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestDecodeKeepsTheFirstOfRepeatedOptions(t *testing.T) {
	first, second := dhcp6wire.AppendDUIDLL(nil, [6]byte{1}), dhcp6wire.AppendDUIDLL(nil, [6]byte{2})
	b := dhcp6wire.AppendMessage(nil, &dhcp6wire.Message{Type: dhcp6wire.Renew, ClientID: first, HasElapsedTime: true, ElapsedTime: 1,
		Options: []dhcp6wire.Option{{Code: 1, Data: second}, {Code: 8, Data: []byte{0, 2}}}})
	var m dhcp6wire.Message
	if err := dhcp6wire.DecodeMessage(&m, b); err != nil {
		t.Fatal(err)
	}
	if string(m.ClientID) != string(first) || m.ElapsedTime != 1 || len(m.Options) != 0 {
		t.Errorf("client ID %x, elapsed %d, others %v: want the first of each", m.ClientID, m.ElapsedTime, m.Options)
	}
}

// Decoding a stream of messages into one Packet allocates nothing once
// its slices have room.
func TestDecodeDoesNotAllocate(t *testing.T) {
	relayed := dhcp6wire.Append(nil, &dhcp6wire.Packet{
		Relays: []dhcp6wire.Relay{{Type: dhcp6wire.RelayForw, InterfaceID: []byte("eth0"), LinkLayerType: 1, LinkLayerAddr: clientMAC[:]}},
		Msg:    sampleRequest(),
	})
	inputs := [][]byte{readHex(t, captured[0]), readHex(t, captured[1]), relayed}
	var p dhcp6wire.Packet
	buf := make([]byte, 0, 1500)
	n := testing.AllocsPerRun(100, func() {
		for _, b := range inputs {
			if err := dhcp6wire.Decode(&p, b); err != nil {
				t.Fatal(err)
			}
			buf = dhcp6wire.Append(buf[:0], &p)
		}
	})
	if n != 0 {
		t.Errorf("Decode and Append allocate %v times per run, want 0", n)
	}
}

const relayHeader = 34

func mustDomains(t testing.TB, names ...string) []byte {
	b, err := dhcp6wire.AppendDomainList(nil, names)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
