package udpsocket

import (
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestSetReceiveBuffer asks for 4 MiB on a loopback socket: as root the
// kernel grants it past rmem_max (and reports double); otherwise it grants
// at most rmem_max, doubled.
func TestSetReceiveBuffer(t *testing.T) {
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const want = 4 << 20
	granted, err := SetReceiveBuffer(conn, want)
	if err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if granted != 2*want {
			t.Errorf("as root: granted %d, want %d (the request, doubled)", granted, 2*want)
		}
		return
	}
	b, err := os.ReadFile("/proc/sys/net/core/rmem_max")
	if err != nil {
		t.Fatal(err)
	}
	max, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if limit := 2 * min(want, max); granted != limit {
		t.Errorf("granted %d, want %d (min(request, rmem_max %d), doubled)", granted, limit, max)
	}
}
