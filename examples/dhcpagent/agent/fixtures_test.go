package agent

import (
	"encoding/json"
	"net"
	"net/netip"
	"os"
	"testing"

	"github.com/go-logr/logr"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// The lab pool and its clients are dhcp4test's, shared with the decision's
// tests.
const (
	macA       = dhcp4test.MACA
	macB       = dhcp4test.MACB
	macUnknown = dhcp4test.MACUnknown
)

var (
	serverIP = dhcp4test.ServerIP
	addrA    = dhcp4test.AddrA
	addrB    = dhcp4test.AddrB
	addrA2   = dhcp4test.AddrA2
)

// labPool is the lab pool with the given status.allocated.
func labPool(allocated map[string]string) *poolsource.Pool {
	return &poolsource.Pool{
		APIVersion: "network.vmnetkit.dev/v1alpha1",
		Kind:       "IPPool",
		Metadata:   poolsource.ObjectMeta{Name: "lab", Namespace: "default"},
		Spec: poolsource.PoolSpec{
			IPPoolSpec: dhcp4test.LabSpec(),
			LeaseTime:  poolsource.Duration(dhcp4test.LabLeaseTime),
		},
		Status: poolsource.PoolStatus{Allocated: allocated},
	}
}

func labAllocated() map[string]string   { return dhcp4test.LabAllocated() }
func movedAllocated() map[string]string { return dhcp4test.MovedAllocated() }

func quietLogger() logr.Logger { return logr.Discard() }

// newAgent is an agent serving p; the load must have no problems.
func newAgent(t testing.TB, p *poolsource.Pool, log logr.Logger, opts ...Option) *Agent {
	t.Helper()
	a := New(nil, append([]Option{WithLogger(log)}, opts...)...)
	u, err := a.Apply(p)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if len(u.Problems) > 0 {
		t.Fatalf("Apply: problems: %v", u.Problems)
	}
	return a
}

func labStore(t testing.TB, allocated map[string]string) *leasestore.Store {
	t.Helper()
	return newAgent(t, labPool(allocated), logr.Discard()).Table()
}

// The message builders are dhcp4test's, shared with the other package's
// tests.
type fataler = dhcp4test.Fataler

var xid = dhcp4test.XID

func hw(t fataler, mac string) net.HardwareAddr { t.Helper(); return dhcp4test.HW(t, mac) }

func msg(t fataler, mac string, typ dhcpv4.MessageType, mods ...dhcpv4.Modifier) *dhcpv4.DHCPv4 {
	t.Helper()
	return dhcp4test.Message(t, mac, typ, mods...)
}

func netIP(a netip.Addr) net.IP { return dhcp4test.NetIP(a) }

func discover(t fataler, mac string) *dhcpv4.DHCPv4 { t.Helper(); return dhcp4test.Discover(t, mac) }

func selecting(t fataler, mac string, server, addr netip.Addr) *dhcpv4.DHCPv4 {
	t.Helper()
	return dhcp4test.Selecting(t, mac, server, addr)
}

func initReboot(t fataler, mac string, addr netip.Addr) *dhcpv4.DHCPv4 {
	t.Helper()
	return dhcp4test.InitReboot(t, mac, addr)
}

func renewing(t fataler, mac string, ciaddr netip.Addr) *dhcpv4.DHCPv4 {
	t.Helper()
	return dhcp4test.Renewing(t, mac, ciaddr)
}

// The views of replies are dhcp4test's too.
type view = dhcp4test.View

func viewOf(t testing.TB, m *dhcpv4.DHCPv4) view { t.Helper(); return dhcp4test.ViewOf(t, m) }

func labOptions(typ string) map[string]string { return dhcp4test.LabOptions(typ) }

func replyView(mac, ciaddr, yiaddr string, opts map[string]string) view {
	return dhcp4test.ReplyView(mac, ciaddr, yiaddr, opts)
}

func offerView(mac string, addr netip.Addr) view { return dhcp4test.OfferView(mac, addr) }

func ackView(mac, ciaddr string, addr netip.Addr) view { return dhcp4test.AckView(mac, ciaddr, addr) }

func nakView(mac, message string) view { return dhcp4test.NakView(mac, message) }

// The request modifiers, the DECLINE and the client's reading of a reply
// are dhcp4test's too.
func withMaxSize(size uint16) dhcpv4.Modifier { return dhcp4test.WithMaxSize(size) }

func relayInfo(n int) []byte { return dhcp4test.RelayInfo(n) }

func withRawOption(t testing.TB, m *dhcpv4.DHCPv4, code uint8, value []byte) *dhcpv4.DHCPv4 {
	t.Helper()
	return dhcp4test.WithRawOption(t, m, code, value)
}

func clientOptions(wire []byte) (map[uint8][]byte, byte, error) { return dhcp4test.ClientOptions(wire) }

func decline(t fataler, mac string, addr netip.Addr, mods ...dhcpv4.Modifier) *dhcpv4.DHCPv4 {
	t.Helper()
	return dhcp4test.Decline(t, mac, addr, mods...)
}

func informView(mac, ciaddr string) view { return dhcp4test.InformView(mac, ciaddr) }

// writePoolFile replaces the file at path with p, atomically, as Watch asks
// of writers.
func writePoolFile(t testing.TB, path string, p *poolsource.Pool) {
	t.Helper()
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
