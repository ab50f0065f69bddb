package agent

import (
	"bytes"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
)

// TestConcurrentHandleScratches: goroutines that call Handle at once, as
// server4 does, each get their own pooled replyScratch: every datagram
// is, byte for byte, the reply dhcp4.ReplyTo gives to its request, however the
// goroutines interleave. Run with -race, it also checks that no scratch
// is touched by two of them.
func TestConcurrentHandleScratches(t *testing.T) {
	a := newAgent(t, labtest.Pool(dhcp4test.LabAllocated()), logr.Discard())
	relayed := dhcp4test.Discover(t, dhcp4test.MACB)
	relayed.GatewayIPAddr = net.IPv4(10, 77, 0, 3).To4()
	relayed.Options[dhcp4wire.OptionRelayInfo] = []byte{1, 4, 'e', 't', 'h', '1'}
	reqs := []*dhcpv4.DHCPv4{
		dhcp4test.Discover(t, dhcp4test.MACA), relayed,
		dhcp4test.Selecting(t, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrA), dhcp4test.Renewing(t, dhcp4test.MACB, dhcp4test.AddrB),
		dhcp4test.Selecting(t, dhcp4test.MACB, dhcp4test.ServerIP, dhcp4test.AddrA), // NAK
		dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeInform, dhcpv4.WithClientIP(dhcp4test.NetIP(dhcp4test.AddrA))),
	}
	want := make([][]byte, len(reqs))
	for i, req := range reqs {
		resp, _, err := dhcp4.ReplyTo(req, a.TableAt(time.Now()))
		if err != nil {
			t.Fatal(err)
		}
		want[i] = dhcp4wire.Append(nil, resp)
	}
	const workers, perWorker = 4, 500
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn := &captureConn{}
			peer := &net.UDPAddr{IP: net.IPv4bcast, Port: dhcp4.ClientPort}
			for n := range perWorker {
				i := (w + n) % len(reqs)
				a.Handle(conn, peer, reqs[i])
				if !bytes.Equal(conn.last, want[i]) {
					errs <- fmt.Errorf("worker %d, packet %d (%s): sent %x, want %x", w, n, reqs[i].MessageType(), conn.last, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
