package agent

import (
	"encoding/json"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// The lab pool: 10.77.0.0/24, server 10.77.0.2, router 10.77.0.1.
const (
	macA       = "52:54:00:aa:00:01" // 10.77.0.10
	macB       = "52:54:00:aa:00:02" // 10.77.0.11
	macUnknown = "52:54:00:ff:ff:ff"
)

var (
	serverIP = netip.MustParseAddr("10.77.0.2")
	addrA    = netip.MustParseAddr("10.77.0.10")
	addrB    = netip.MustParseAddr("10.77.0.11")
	addrA2   = netip.MustParseAddr("10.77.0.20") // where macA moves
)

// labPool is the lab pool with the given status.allocated.
func labPool(allocated map[string]string) *Pool {
	return &Pool{
		APIVersion: "network.vmnetkit.dev/v1alpha1",
		Kind:       "IPPool",
		Metadata:   ObjectMeta{Name: "lab", Namespace: "default"},
		Spec: PoolSpec{
			IPPoolSpec: v1alpha1.IPPoolSpec{
				CIDR:         "10.77.0.0/24",
				RangeStart:   "10.77.0.10",
				RangeEnd:     "10.77.0.200",
				Exclude:      []string{"10.77.0.100-10.77.0.109"},
				ServerIP:     "10.77.0.2",
				Router:       "10.77.0.1",
				DNS:          []string{"10.77.0.2", "10.77.0.3"},
				NTP:          []string{"10.77.0.3"},
				Domain:       "lab.example",
				DomainSearch: []string{"lab.example", "example"},
			},
			LeaseTime: Duration(10 * time.Minute),
		},
		Status: PoolStatus{Allocated: allocated},
	}
}

// labAllocated holds macA at 10.77.0.10 and macB at 10.77.0.11.
func labAllocated() map[string]string {
	return map[string]string{"10.77.0.10": macA, "10.77.0.11": macB}
}

// movedAllocated is labAllocated after macA moved to 10.77.0.20.
func movedAllocated() map[string]string {
	return map[string]string{"10.77.0.20": macA, "10.77.0.11": macB}
}

func quietLogger() logr.Logger { return logr.Discard() }

// newAgent is an agent serving p; the load must have no problems.
func newAgent(t testing.TB, p *Pool, log logr.Logger, opts ...Option) *Agent {
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

func discover(t fataler, mac string) *dhcpv4.DHCPv4 {
	return msg(t, mac, dhcpv4.MessageTypeDiscover)
}

// selecting is a REQUEST in the SELECTING state: server identifier and
// requested IP address set, ciaddr zero.
func selecting(t fataler, mac string, server, addr netip.Addr) *dhcpv4.DHCPv4 {
	return msg(t, mac, dhcpv4.MessageTypeRequest,
		dhcpv4.WithOption(dhcpv4.OptServerIdentifier(netIP(server))),
		dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(netIP(addr))))
}

// initReboot is a REQUEST in the INIT-REBOOT state: requested IP address
// set, no server identifier, ciaddr zero.
func initReboot(t fataler, mac string, addr netip.Addr) *dhcpv4.DHCPv4 {
	return msg(t, mac, dhcpv4.MessageTypeRequest,
		dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(netIP(addr))))
}

// renewing is a REQUEST in the RENEWING or REBINDING state: ciaddr set, no
// server identifier or requested IP address.
func renewing(t fataler, mac string, ciaddr netip.Addr) *dhcpv4.DHCPv4 {
	return msg(t, mac, dhcpv4.MessageTypeRequest, dhcpv4.WithClientIP(netIP(ciaddr)))
}

// labOptions are the options of every OFFER and ACK of the lab pool.
func labOptions(typ string) map[string]string {
	return map[string]string{
		"1 subnet mask":     "255.255.255.0",
		"3 router":          "10.77.0.1",
		"6 dns":             "10.77.0.2,10.77.0.3",
		"15 domain name":    "lab.example",
		"42 ntp":            "10.77.0.3",
		"51 lease time":     "600",
		"53 message type":   typ,
		"54 server id":      "10.77.0.2",
		"58 renewal time":   "300",
		"59 rebinding time": "525",
		"119 domain search": "lab.example,example",
	}
}

// replyView is the view of a reply to a request with xid from mac.
func replyView(mac, ciaddr, yiaddr string, opts map[string]string) view {
	return view{
		Op: "BootReply", XID: xid.String(), CHAddr: mac,
		CIAddr: ciaddr, YIAddr: yiaddr, SIAddr: "0.0.0.0", GIAddr: "0.0.0.0",
		Options: opts,
	}
}

func offerView(mac string, addr netip.Addr) view {
	return replyView(mac, "0.0.0.0", addr.String(), labOptions("OFFER"))
}

func ackView(mac, ciaddr string, addr netip.Addr) view {
	return replyView(mac, ciaddr, addr.String(), labOptions("ACK"))
}

func nakView(mac, message string) view {
	return replyView(mac, "0.0.0.0", "0.0.0.0", map[string]string{
		"53 message type": "NAK",
		"54 server id":    "10.77.0.2",
		"56 message":      message,
	})
}

// writePoolFile replaces the file at path with p, atomically, as Watch asks
// of writers.
func writePoolFile(t testing.TB, path string, p *Pool) {
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
