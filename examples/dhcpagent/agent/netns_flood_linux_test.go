package agent

import (
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/udpsocket"

	"flag"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/dhcpv4/nclient4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/metrics"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
)

var (
	floodCount = flag.Int("flood", 0, "TestNetnsDeclineFlood: DECLINEs to send (0: the test does not run; issue 26 used 100000)")
	floodRate  = flag.Int("flood-rate", 5000, "TestNetnsDeclineFlood: DECLINEs a second")
)

// floodLeases is the size of the flooded pool: nearly a /16, so that the
// flood can put 65,000 addresses on probation.
const floodLeases = 65000

// TestNetnsDeclineFlood (go test -run TestNetnsDeclineFlood -flood
// 100000, as root) floods the agent, in its namespace with the command's
// 4 MiB receive buffer, with spoofed DECLINEs at -flood-rate a second,
// each of a leased client's own address, cycling over a pool of 65,000
// leases, while ISC dhclient renews an 8 s lease (every 4 s) from the
// client's namespace. It reports the datagrams the kernel dropped (UDP
// RcvbufErrors of the agent's namespace) and how many DHCPREQUESTs each
// renewal took, and fails on any drop or on a renewal that needed more
// than one. "window": the agent as it runs (each DECLINE follows no ACK,
// and is refused); "no window" (WithDeclineWindow(0)): every DECLINE is
// accepted, so that 65,000 addresses go on probation, the load of issue
// 26.
func TestNetnsDeclineFlood(t *testing.T) {
	if *floodCount == 0 {
		t.Skip("a load test: run it with -flood N (as root)")
	}
	netnstest.Require(t)
	requireClient(t, "dhclient")
	for _, window := range []bool{true, false} {
		name := "window"
		if !window {
			name = "no window"
		}
		t.Run(name, func(t *testing.T) {
			runDeclineFlood(t, window)
		})
	}
}

func runDeclineFlood(t *testing.T, window bool) {
	c := lifecycleClients[1]
	if c.Name != "dhclient" {
		t.Fatalf("lifecycleClients[1] is %s", c.Name)
	}
	pool := benchPool(floodLeases)
	pool.Status.Allocated["10.77.0.10"] = dhcp4test.MACA
	pool.Spec.LeaseTime = poolsource.Duration(lifecycleLease)
	opts := []Option{}
	if !window {
		opts = append(opts, WithDeclineWindow(0))
	}
	h := startFloodHost(t, c, pool, opts...)

	h.run(nil)
	if b := h.next("bound", 30*time.Second); b.addr != dhcp4test.AddrA.String() {
		t.Fatalf("bound %s, want %s", b.addr, dhcp4test.AddrA)
	}

	// The flood, encoded beforehand: DECLINE i is lease i%floodLeases's.
	wires := make([][]byte, floodLeases)
	for i := range wires {
		mac := fmt.Sprintf("52:54:00:%02x:%02x:%02x", i>>16&0xff, i>>8&0xff, i&0xff)
		addr := netip.AddrFrom4([4]byte{10, 77, byte(1 + i>>8), byte(i)})
		wires[i] = dhcp4test.Decline(t, mac, addr, dhcpv4.WithOption(dhcpv4.OptMessage("address in use"))).ToBytes()
	}
	var conn net.PacketConn
	if err := netnstest.In(h.pair.ClientNS, func() (err error) {
		conn, err = nclient4.NewRawUDPConn(h.pair.ClientIf, dhcp4.ClientPort)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	dst := &net.UDPAddr{IP: net.IPv4bcast, Port: dhcp4.ServerPort}

	dropsBefore := udpRcvbufErrors(t, h.pair.ServerNS)
	statsBefore := h.agent.Stats(time.Now())
	outBefore := len(h.output.String())
	interval := time.Second / time.Duration(*floodRate)
	start := time.Now()
	sent := 0
	for ; sent < *floodCount; sent++ {
		if d := time.Until(start.Add(time.Duration(sent) * interval)); d > 0 {
			time.Sleep(d)
		}
		if _, err := conn.WriteTo(wires[sent%len(wires)], dst); err != nil {
			t.Fatalf("DECLINE %d: %v", sent, err)
		}
		if time.Since(start) > 2*time.Duration(*floodCount)*interval+10*time.Second {
			t.Errorf("flood took more than twice its time: stopped after %d", sent)
			break
		}
	}
	elapsed := time.Since(start)
	// The agent reads what is queued, then the counts settle.
	var st metrics.Stats
	deadline := time.Now().Add(30 * time.Second)
	for {
		st = h.agent.Stats(time.Now())
		if st.Received-statsBefore.Received >= uint64(sent) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	drops := udpRcvbufErrors(t, h.pair.ServerNS) - dropsBefore

	// dhclient -v prints a line per DHCPREQUEST it sends and per lease it
	// binds: count the requests of each renewal during the flood.
	out := h.output.String()[outBefore:]
	tries := renewalTries(out, "10.77.0.10")
	received := st.Received - statsBefore.Received
	t.Logf("%s: %d DECLINEs in %v (%.0f/s); agent received %d messages, accepted %d DECLINEs, %d on probation; kernel dropped %d; renewals during the flood: %d, DHCPREQUESTs each %v; log %d bytes",
		map[bool]string{true: "window", false: "no window"}[window], sent, elapsed.Round(time.Millisecond),
		float64(sent)/elapsed.Seconds(), received, st.Declines-statsBefore.Declines, st.OnProbation, drops,
		len(tries), tries, len(h.logs.String()))
	if drops != 0 {
		t.Errorf("the kernel dropped %d datagrams", drops)
	}
	if len(tries) < 2 {
		t.Errorf("%d renewals during the flood, want at least 2; dhclient output:\n%s", len(tries), out)
	}
	for i, k := range tries {
		if k != 1 {
			t.Errorf("renewal %d took %d DHCPREQUESTs, want 1", i, k)
		}
	}
}

// startFloodHost is startLifecycle without the tap, which decodes and
// keeps every message (a cost per packet the agent does not have), and
// with the receive buffer the command asks for (its -rcvbuf default).
func startFloodHost(t *testing.T, c netnstest.Client4, pool *poolsource.Pool, opts ...Option) *lifecycleHost {
	t.Helper()
	h := &lifecycleHost{t: t, c: c, dir: t.TempDir(), output: &logtest.Buffer{}, logs: &logtest.Buffer{}, sends: &sendLog{}}
	h.pair = netnstest.NewPair(t, dhcp4test.MACA, "10.77.0.2/24")
	h.agent = newAgent(t, pool, logtest.Logger(h.logs, 0), opts...)
	conn := listenIn(t, h.pair.ServerNS, h.pair.ServerIf)
	if granted, err := udpsocket.SetReceiveBuffer(conn, 4<<20); err != nil {
		t.Fatalf("receive buffer: %v (granted %d)", err, granted)
	}
	h.server = conn
	serveIn(t, h.agent, conn)
	t.Cleanup(func() {
		h.stop()
		if t.Failed() {
			t.Logf("%s output:\n%s", c.Name, h.output)
		}
	})
	c.Setup(t, h.dir)
	script := filepath.Join(h.dir, "script")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(netnstest.Script4, h.dir)), 0o755); err != nil {
		t.Fatal(err)
	}
	return h
}

// udpRcvbufErrors is the UDP RcvbufErrors counter of /proc/net/snmp in
// network namespace ns: datagrams the kernel dropped because a socket's
// receive buffer was full.
func udpRcvbufErrors(t *testing.T, ns string) uint64 {
	t.Helper()
	out, err := exec.Command("ip", "netns", "exec", ns, "cat", "/proc/net/snmp").CombinedOutput()
	if err != nil {
		t.Fatalf("/proc/net/snmp in %s: %v\n%s", ns, err, out)
	}
	m := regexp.MustCompile(`(?m)^Udp: (\D.*)\nUdp: (\d.*)$`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("no Udp lines in /proc/net/snmp:\n%s", out)
	}
	names, values := strings.Fields(m[1]), strings.Fields(m[2])
	for i, n := range names {
		if n == "RcvbufErrors" && i < len(values) {
			v, err := strconv.ParseUint(values[i], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	t.Fatalf("no RcvbufErrors in %s", m[1])
	return 0
}

// renewalTries reads dhclient -v's output: how many DHCPREQUESTs for addr
// each binding it printed took, in order.
func renewalTries(out, addr string) []int {
	var tries []int
	n := 0
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "DHCPREQUEST for "+addr+" "):
			n++
		case strings.HasPrefix(line, "bound to "+addr+" "):
			tries = append(tries, n)
			n = 0
		}
	}
	return tries
}
