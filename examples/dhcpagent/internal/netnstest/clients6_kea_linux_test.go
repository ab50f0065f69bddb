package netnstest

import (
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
)

// startKea6 runs kea-dhcp6 in the pair's server namespace with a
// reservation of 2001:db8:30::a for duid (colon hex), DNS and a search list, and
// lifetimes short enough to see a renewal.
func startKea6(t *testing.T, p *Pair, duid string) {
	t.Helper()
	RequireTool(t, "kea-dhcp6", "kea-dhcp6-server")
	dir := t.TempDir()
	conf := fmt.Sprintf(`{"Dhcp6": {
 "interfaces-config": {"interfaces": [%[1]q]},
 "lease-database": {"type": "memfile", "persist": false, "lfc-interval": 0},
 "server-id": {"type": "LL", "persist": false},
 "preferred-lifetime": 40, "valid-lifetime": 60, "renew-timer": 2, "rebind-timer": 30,
 "option-data": [{"name": "dns-servers", "data": "2001:db8:30::53"}, {"name": "domain-search", "data": "lab.example, example"}],
 "subnet6": [{"id": 1, "subnet": "2001:db8:30::/64", "interface": %[1]q, "pools": [{"pool": "2001:db8:30::1000-2001:db8:30::1fff"}],
   "reservations": [{"duid": %[2]q, "ip-addresses": ["2001:db8:30::a"]}]}],
 "loggers": [{"name": "kea-dhcp6", "severity": "WARN", "output_options": [{"output": %[3]q}]}]
}}`, p.ServerIf, duid, filepath.Join(dir, "kea.log"))
	if err := os.WriteFile(filepath.Join(dir, "kea.json"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	out := &logtest.Buffer{}
	cmd := exec.Command("ip", "netns", "exec", p.ServerNS, "env", "KEA_PIDFILE_DIR="+dir, "KEA_LOCKFILE_DIR="+dir,
		"kea-dhcp6", "-c", filepath.Join(dir, "kea.json"))
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if t.Failed() {
			t.Logf("kea-dhcp6 output:\n%s", out)
		}
	})
	time.Sleep(time.Second) // it opens its sockets
}

// TestClients6Kea checks the harness against Kea: both real clients,
// with a DUID-UUID, get the reservation of their DUID with the DNS and
// search list, renew at T1, and release; dhclient also asks for
// information only. (Kea 2.2 here looked their reservation up by DUID
// only, whatever mac-sources said: the agent's tests do the MAC part.)
func TestClients6Kea(t *testing.T) {
	Require(t)
	uuid := []byte{0, 4, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0}
	for _, kind := range []Client6Kind{Dhclient, Dhcpcd} {
		t.Run(string(kind), func(t *testing.T) {
			const mac = "52:54:00:aa:00:01"
			p := NewPair(t, mac, "2001:db8:30::1/64")
			LinkLocal(t, p.ClientNS, p.ClientIf)
			startKea6(t, p, colonHex(uuid))
			c := StartClient6(t, kind, p, Client6Config{DUID: uuid})
			bound := c.Wait("BOUND6", 20*time.Second, func(e Event6) bool { return e.Reason == "BOUND6" })
			want := Event6{Reason: "BOUND6", Addr: netip.MustParseAddr("2001:db8:30::a"), Preferred: 40 * time.Second, Valid: 60 * time.Second,
				DNS: "2001:db8:30::53", Search: "lab.example example", ServerID: bound.ServerID, ClientID: "0004112233445566778899aabbccddeeff00"}
			if diff := cmp.Diff(want, bound, cmp.Comparer(func(a, b netip.Addr) bool { return a == b }), cmp.FilterPath(
				func(p cmp.Path) bool { return p.Last().String() == ".Env" }, cmp.Ignore())); diff != "" {
				t.Errorf("bound (-want +got):\n%s", diff)
			}
			c.Wait("RENEW6", 10*time.Second, func(e Event6) bool { return e.Reason == "RENEW6" && e.Addr == want.Addr })
			if diff := cmp.Diff([]netip.Addr{want.Addr}, p.Addrs(t), cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); diff != "" {
				t.Errorf("addresses on the interface (-want +got):\n%s", diff)
			}
			c.Release()
			c.Wait("RELEASE6", 5*time.Second, func(e Event6) bool { return e.Reason == "RELEASE6" && e.Addr == want.Addr })
			if got := p.Addrs(t); len(got) != 0 {
				t.Errorf("after the release, the interface still has %v", got)
			}
			if kind != Dhclient {
				return
			}
			info := StartClient6(t, kind, p, Client6Config{InfoOnly: true})
			e := info.Wait("information", 10*time.Second, func(e Event6) bool { return e.DNS != "" })
			if e.DNS != "2001:db8:30::53" || e.Search != "lab.example example" || e.Addr.IsValid() {
				t.Errorf("information-request reply read as %v, want DNS, search list and no address", e)
			}
		})
	}
}
