package agent

import (
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"

	"bytes"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// Table versions for the concurrency test: version v serves MAC i at
// 10.77.(v+1).(10+i), with domain name "v<v>.lab.example", lease time v+1
// minutes and name server 10.78.0.v, so every reply names its version and
// can be checked against it field by field.
const (
	cMACs     = 16
	cVersions = 100 // swaps after the first table
	cRequests = 10000
	cWorkers  = 8
)

func cMAC(i int) string { return fmt.Sprintf("52:54:00:cc:00:%02x", i) }

func cAddr(i, v int) netip.Addr { return netip.AddrFrom4([4]byte{10, 77, byte(v + 1), byte(10 + i)}) }

func cPool(v int) *poolsource.Pool {
	alloc := map[string]string{}
	for i := range cMACs {
		alloc[cAddr(i, v).String()] = cMAC(i)
	}
	return &poolsource.Pool{
		Metadata: poolsource.ObjectMeta{Name: "conc", ResourceVersion: strconv.Itoa(v)},
		Spec: poolsource.PoolSpec{
			IPPoolSpec: v1alpha1.IPPoolSpec{
				CIDR: "10.77.0.0/16", ServerIP: "10.77.0.2", Router: "10.77.0.1",
				DNS:    []string{fmt.Sprintf("10.78.0.%d", v)},
				Domain: fmt.Sprintf("v%d.lab.example", v),
			},
			LeaseTime: poolsource.Duration(time.Duration(v+1) * time.Minute),
		},
		Status: poolsource.PoolStatus{Allocated: alloc},
	}
}

// counter is a counter that goroutines can wait on.
type counter struct {
	mu   sync.Mutex
	cond *sync.Cond
	n    int64
}

// Add adds d and returns the new value.
func (c *counter) Add(d int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += d
	if c.cond != nil {
		c.cond.Broadcast()
	}
	return c.n
}

func (c *counter) Load() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *counter) waitFor(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cond == nil {
		c.cond = sync.NewCond(&c.mu)
	}
	for c.n < n {
		c.cond.Wait()
	}
}

// captureConn is a net.PacketConn that keeps what Handle writes.
type captureConn struct {
	net.PacketConn // nil: only WriteTo is called
	last           []byte
	to             net.Addr
}

func (c *captureConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	c.last, c.to = append(c.last[:0], b...), addr
	return len(b), nil
}

// TestConcurrentSwaps sends 10,000 requests through the agent's handler
// from 8 goroutines while the table is swapped 100 times, and checks that
// every reply comes whole from one table version: its address, domain
// name, name server and lease times all belong to the same version.
func TestConcurrentSwaps(t *testing.T) {
	a := newAgent(t, cPool(0), logr.Discard())
	var started, swaps counter
	seen := make([]atomic.Int64, cVersions+1) // replies per version

	// Pace both sides so that the swaps spread over the requests: request n
	// waits for swap n/100, swap k for request (k-1)*100.
	waitFor := func(c *counter, n int64) { c.waitFor(n) }
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for v := 1; v <= cVersions; v++ {
			waitFor(&started, int64(v-1)*cRequests/cVersions)
			if _, err := a.Apply(cPool(v)); err != nil {
				t.Error(err)
				return
			}
			swaps.Add(1)
		}
	}()

	errs := make(chan error, 5)
	for w := range cWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn := &captureConn{}
			peer := &net.UDPAddr{IP: net.IPv4bcast, Port: dhcp4.ClientPort}
			for {
				n := started.Add(1) - 1
				if n >= cRequests {
					return
				}
				waitFor(&swaps, min(n*cVersions/cRequests, cVersions))
				i := int(n) % cMACs
				guess := int(swaps.Load())
				var req *dhcpv4.DHCPv4
				if n%2 == 0 {
					req = dhcp4test.Discover(t, cMAC(i))
				} else {
					req = dhcp4test.Renewing(t, cMAC(i), cAddr(i, guess))
				}
				req.TransactionID = dhcpv4.TransactionID{byte(w), byte(n >> 16), byte(n >> 8), byte(n)}
				conn.last = conn.last[:0]
				a.Handle(conn, peer, req)
				if err := checkConsistent(req, conn.last, i); err != nil {
					// Keep going (the swapper waits for the requests), but
					// report only the first few failures.
					select {
					case errs <- fmt.Errorf("request %d (%s from %s): %w", n, req.MessageType(), cMAC(i), err):
					default:
					}
					continue
				}
				if resp, err := dhcpv4.FromBytes(conn.last); err == nil {
					if v, ok := versionOf(resp); ok {
						seen[v].Add(1)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	var versions, replies int64
	for v := range seen {
		if c := seen[v].Load(); c > 0 {
			versions++
			replies += c
		}
	}
	t.Logf("%d requests, %d swaps, %d OFFER/ACK replies from %d distinct table versions", cRequests, swaps.Load(), replies, versions)
	if swaps.Load() != cVersions {
		t.Errorf("%d swaps, want %d", swaps.Load(), cVersions)
	}
	if versions < cVersions/2 {
		t.Errorf("replies came from only %d table versions: the swaps did not interleave with the requests", versions)
	}
}

// checkConsistent checks one reply (raw bytes) to req from MAC i against
// the one table version its domain name names: its address and every
// option, byte for byte.
func checkConsistent(req *dhcpv4.DHCPv4, raw []byte, i int) error {
	if len(raw) == 0 {
		return fmt.Errorf("no reply")
	}
	resp, err := dhcpv4.FromBytes(raw)
	if err != nil {
		return err
	}
	if resp.MessageType() == dhcpv4.MessageTypeNak {
		// The table's address for the MAC was not the one asked: a NAK
		// carries no version, only its three options.
		want := dhcpv4.OptionsFromList(
			dhcpv4.OptMessageType(dhcpv4.MessageTypeNak),
			dhcpv4.OptServerIdentifier(net.IPv4(10, 77, 0, 2)),
			dhcpv4.OptMessage(fmt.Sprintf("%s is not leased to %s", req.ClientIPAddr, cMAC(i))))
		return sameOptions(resp.Options, want)
	}
	v, ok := versionOf(resp)
	if !ok {
		return fmt.Errorf("reply names no table version: %v", resp.Options)
	}
	typ := dhcpv4.MessageTypeOffer
	if req.MessageType() == dhcpv4.MessageTypeRequest {
		typ = dhcpv4.MessageTypeAck
	}
	if got, want := resp.YourIPAddr.String(), cAddr(i, v).String(); got != want {
		return fmt.Errorf("%s of %s from version %d, whose address is %s", typ, got, v, want)
	}
	if err := sameOptions(resp.Options, cOptions[typ][v]); err != nil {
		return fmt.Errorf("%s from version %d: %w", typ, v, err)
	}
	return nil
}

// cOptions are the wire options of an OFFER and an ACK from each version.
var cOptions = func() map[dhcpv4.MessageType][]dhcpv4.Options {
	m := map[dhcpv4.MessageType][]dhcpv4.Options{}
	for _, typ := range []dhcpv4.MessageType{dhcpv4.MessageTypeOffer, dhcpv4.MessageTypeAck} {
		for v := 0; v <= cVersions; v++ {
			lease := time.Duration(v+1) * time.Minute
			m[typ] = append(m[typ], dhcpv4.OptionsFromList(
				dhcpv4.OptMessageType(typ),
				dhcpv4.OptSubnetMask(net.CIDRMask(16, 32)),
				dhcpv4.OptRouter(net.IPv4(10, 77, 0, 1)),
				dhcpv4.OptDNS(net.IPv4(10, 78, 0, byte(v))),
				dhcpv4.OptDomainName(fmt.Sprintf("v%d.lab.example", v)),
				dhcpv4.OptIPAddressLeaseTime(lease),
				dhcpv4.OptServerIdentifier(net.IPv4(10, 77, 0, 2)),
				dhcpv4.OptRenewTimeValue(lease/2),
				dhcpv4.OptRebindingTimeValue(lease*7/8),
			))
		}
	}
	return m
}()

// sameOptions reports how got differs from want, or nil.
func sameOptions(got, want dhcpv4.Options) error {
	if len(got) != len(want) {
		return fmt.Errorf("options %v, want %v", got, want)
	}
	for code, w := range want {
		if !bytes.Equal(got[code], w) {
			return fmt.Errorf("options %v, want %v", got, want)
		}
	}
	return nil
}

// versionOf reads the table version from a reply's domain name.
func versionOf(resp *dhcpv4.DHCPv4) (int, bool) {
	name, ok := strings.CutSuffix(resp.DomainName(), ".lab.example")
	if !ok || !strings.HasPrefix(name, "v") {
		return 0, false
	}
	v, err := strconv.Atoi(name[1:])
	if err != nil || v < 0 || v > cVersions {
		return 0, false
	}
	return v, true
}
