package dhcp4

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/rfc1035label"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// The helpers of the fit tests (the pools that do not fit are
// labtest.BigPool): a reply as a client that honours option overload
// reads it.

// udpIPv4Overhead is what the IPv4 datagram (20-byte header) and the UDP
// header (8) add to a DHCP message; the client's option 57 and the
// 576-byte minimum count them (see ReplyLimit).
const udpIPv4Overhead = 28

// clientView is what a client that honours option overload reads from a
// reply: the view of the header, and every option decoded (see
// decodeOption), wherever it was carried.
func clientView(t testing.TB, m *dhcpv4.DHCPv4) dhcp4test.View {
	t.Helper()
	wire := m.ToBytes()
	opts, _, err := dhcp4test.ClientOptions(wire)
	if err != nil {
		t.Fatalf("reply does not parse as a client parses it: %v", err)
	}
	v := dhcp4test.ViewOf(t, &dhcpv4.DHCPv4{
		OpCode: m.OpCode, HWType: m.HWType, TransactionID: m.TransactionID, Flags: m.Flags,
		ClientIPAddr: m.ClientIPAddr, YourIPAddr: m.YourIPAddr, ServerIPAddr: m.ServerIPAddr,
		GatewayIPAddr: m.GatewayIPAddr, ClientHWAddr: m.ClientHWAddr, Options: dhcpv4.Options{},
	})
	for code, raw := range opts {
		name, val := dhcp4test.DecodeOption(code, raw)
		v.Options[name] = val
	}
	return v
}

// mandatory are the options every OFFER and ACK of the lab pool keeps,
// whatever the limit.
func mandatory(typ string) map[string]string {
	o := dhcp4test.LabOptions(typ)
	for _, k := range []string{"6 dns", "15 domain name", "42 ntp", "119 domain search"} {
		delete(o, k)
	}
	return o
}

// mustFit fails t unless the reply's wire form fits in limit bytes once
// the IPv4 and UDP headers are added, and carries the mandatory options.
func mustFit(t *testing.T, resp *dhcpv4.DHCPv4, limit int, typ string) dhcp4test.View {
	t.Helper()
	if got := len(resp.ToBytes()) + udpIPv4Overhead; got > limit {
		t.Fatalf("%s is a %d-byte datagram, the client accepts %d", typ, got, limit)
	}
	v := clientView(t, resp)
	got := map[string]string{}
	for k := range mandatory(typ) {
		got[k] = v.Options[k]
	}
	if diff := cmp.Diff(mandatory(typ), got); diff != "" {
		t.Errorf("mandatory options of the %s (-want +got):\n%s", typ, diff)
	}
	return v
}

// checkAgainstLease checks that the options a client reads from a reply
// to req are those of the lease (or the NAK) and the echoes, each whole or
// a prefix of its entries, and that trim says exactly which are not whole.
func checkAgainstLease(t testing.TB, req *dhcpv4.DHCPv4, store *leasestore.Store, got map[uint8][]byte, trim Trim) {
	t.Helper()
	lease, ok := store.Lookup(leasestore.MustParseMAC(req.ClientHWAddr.String()))
	if !ok {
		t.Fatalf("no lease for %s", req.ClientHWAddr)
	}
	full := map[uint8][]byte{}
	entries := map[uint8]func([]byte) (int, bool){} // entries in a value, and whether it is a prefix of the full one
	typ := dhcpv4.MessageType(got[53][0])
	if typ == dhcpv4.MessageTypeNak {
		asked := req.RequestedIPAddress()
		if asked == nil {
			asked = req.ClientIPAddr
		}
		full[53], full[54] = []byte{byte(typ)}, dhcp4test.ServerIP.AsSlice()
		full[56] = fmt.Appendf(nil, "%s is not leased to %s", asked, req.ClientHWAddr)
	} else {
		for _, o := range dhcp4wire.LeaseOptions(lease) {
			full[o.Code.Code()] = o.Value.ToBytes()
		}
		full[53] = []byte{byte(typ)}
	}
	for _, code := range []uint8{82, 61} {
		if v := req.Options.Get(dhcpv4.GenericOptionCode(code)); v != nil {
			full[code] = v
		}
	}
	for _, code := range []uint8{6, 42} {
		entries[code] = func(v []byte) (int, bool) {
			return len(v) / 4, len(v)%4 == 0 && bytes.HasPrefix(full[code], v)
		}
	}
	entries[119] = func(v []byte) (int, bool) {
		names, err := rfc1035label.FromBytes(v)
		if err != nil {
			return 0, false
		}
		all, _ := rfc1035label.FromBytes(full[119])
		return len(names.Labels), len(names.Labels) <= len(all.Labels) &&
			cmp.Equal(names.Labels, all.Labels[:len(names.Labels)])
	}
	count := func(code uint8, v []byte) int {
		if f, ok := entries[code]; ok {
			n, _ := f(v)
			return n
		}
		return 1
	}
	cuts := map[uint8]Cut{}
	for code, want := range full {
		v, ok := got[code]
		switch {
		case !ok:
			cuts[code] = Cut{Code: code, Kept: 0, Of: count(code, want)}
		case bytes.Equal(v, want):
		default:
			f, list := entries[code]
			n, prefix := 0, false
			if list {
				n, prefix = f(v)
			}
			if !prefix || n == 0 {
				t.Errorf("option %d is %x, not a prefix of %x", code, v, want)
				continue
			}
			cuts[code] = Cut{Code: code, Kept: n, Of: count(code, want)}
		}
	}
	for code := range got {
		if _, ok := full[code]; !ok {
			t.Errorf("option %d in the reply is neither the lease's nor an echo", code)
		}
	}
	for _, code := range []uint8{53, 54, 51, 58, 59, 1, 3} {
		if _, ok := cuts[code]; ok {
			t.Errorf("mandatory option %d left out", code)
		}
	}
	want := map[uint8]Cut{}
	for _, c := range trim.Cuts {
		want[c.Code] = c
	}
	if diff := cmp.Diff(want, cuts); diff != "" {
		t.Errorf("what the reply left out, from Trim (-) and read from the reply (+):\n%s", diff)
	}
}
