package dhcp4test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/rfc1035label"
)

// View is a DHCPv4 message in comparable, readable form: every header field
// a reply sets and every option present, decoded, so that cmp.Diff shows any
// field or option that is wrong, missing or extra.
type View struct {
	Op        string
	XID       string
	CHAddr    string
	CIAddr    string
	YIAddr    string
	SIAddr    string
	GIAddr    string
	Broadcast bool
	Options   map[string]string
}

// ViewOf decodes m as it travels: it is serialized and parsed again first.
func ViewOf(t testing.TB, m *dhcpv4.DHCPv4) View {
	t.Helper()
	wire, err := dhcpv4.FromBytes(m.ToBytes())
	if err != nil {
		t.Fatalf("reply does not parse back: %v", err)
	}
	v := View{
		Op:        wire.OpCode.String(),
		XID:       wire.TransactionID.String(),
		CHAddr:    wire.ClientHWAddr.String(),
		CIAddr:    wire.ClientIPAddr.String(),
		YIAddr:    wire.YourIPAddr.String(),
		SIAddr:    wire.ServerIPAddr.String(),
		GIAddr:    wire.GatewayIPAddr.String(),
		Broadcast: wire.IsBroadcast(),
		Options:   map[string]string{},
	}
	for code, raw := range wire.Options {
		name, val := DecodeOption(code, raw)
		v.Options[name] = val
	}
	return v
}

// DecodeOption names and renders one option; an option the agent never
// sends is rendered as hex under its number, so it shows up in diffs.
func DecodeOption(code uint8, raw []byte) (string, string) {
	ips := func() string {
		var s []string
		for i := 0; i+4 <= len(raw); i += 4 {
			s = append(s, netip.AddrFrom4([4]byte(raw[i:i+4])).String())
		}
		if len(raw)%4 != 0 {
			s = append(s, "trailing "+hex.EncodeToString(raw[len(raw)/4*4:]))
		}
		return strings.Join(s, ",")
	}
	secs := func() string {
		if len(raw) != 4 {
			return "bad length " + hex.EncodeToString(raw)
		}
		return fmt.Sprint(binary.BigEndian.Uint32(raw))
	}
	switch code {
	case 1:
		return "1 subnet mask", ips()
	case 3:
		return "3 router", ips()
	case 6:
		return "6 dns", ips()
	case 15:
		return "15 domain name", string(raw)
	case 42:
		return "42 ntp", ips()
	case 51:
		return "51 lease time", secs()
	case 53:
		if len(raw) == 1 {
			return "53 message type", dhcpv4.MessageType(raw[0]).String()
		}
	case 54:
		return "54 server id", ips()
	case 56:
		return "56 message", string(raw)
	case 58:
		return "58 renewal time", secs()
	case 59:
		return "59 rebinding time", secs()
	case 61:
		return "61 client id", hex.EncodeToString(raw)
	case 82:
		return "82 relay agent info", hex.EncodeToString(raw)
	case 119:
		l, err := rfc1035label.FromBytes(raw)
		if err != nil {
			return "119 domain search", "bad: " + hex.EncodeToString(raw)
		}
		return "119 domain search", strings.Join(l.Labels, ",")
	}
	return fmt.Sprintf("%d", code), hex.EncodeToString(raw)
}
