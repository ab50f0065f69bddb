package agent

import (
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
)

// lifecycleLease is the lease time of the lifecycle tests: short, so that
// renewal (T1, 1/2) and rebinding (T2, 7/8) come within seconds, and far
// enough apart (4s against 7s) to tell which one the client was in.
const lifecycleLease = 8 * time.Second

// lifecycleClients are the real DHCP clients the lifecycle tests run for
// a while, through renewals (netnstest.Client4.Run, on netnstest.Script4),
// in the order the tests index them: udhcpc, dhclient, dhcpcd.
var lifecycleClients = []netnstest.Client4{netnstest.Udhcpc, netnstest.Dhclient4, netnstest.Dhcpcd4}
