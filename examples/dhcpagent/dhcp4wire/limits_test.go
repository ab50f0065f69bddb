package dhcp4wire

import (
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// TestReplyLimit: option 57 as RFC 2132 and RFC 2131 section 2 read
// it, less the IPv4 and UDP headers; 576 when absent, malformed or below
// the minimum.
func TestReplyLimit(t *testing.T) {
	tests := []struct {
		name string
		req  *dhcpv4.DHCPv4
		want int
	}{
		{name: "no option 57", req: dhcp4test.Discover(t, dhcp4test.MACA), want: 548},
		{name: "576", req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, dhcp4test.WithMaxSize(576)), want: 548},
		{name: "below the minimum", req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, dhcp4test.WithMaxSize(575)), want: 548},
		{name: "zero", req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, dhcp4test.WithMaxSize(0)), want: 548},
		{name: "1500", req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, dhcp4test.WithMaxSize(1500)), want: 1472},
		{name: "largest", req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, dhcp4test.WithMaxSize(65535)), want: 65507},
		{name: "3 bytes long: malformed, absent", req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover,
			dhcpv4.WithGeneric(dhcpv4.OptionMaximumDHCPMessageSize, []byte{5, 220, 0})), want: 548},
		{name: "no request", req: nil, want: 548},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReplyLimit(tt.req); got != tt.want {
				t.Errorf("ReplyLimit = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestLeaseSeconds: whole seconds rounded up, the default for zero, and
// 2^32-1 (infinite) from 2^32-1 seconds up.
func TestLeaseSeconds(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want uint32
	}{
		{0, 3600},
		{-time.Second, 1},
		{time.Nanosecond, 1},
		{time.Second, 1},
		{time.Second + 1, 2},
		{10 * time.Minute, 600},
		{leasestore.MaxLeaseTime - time.Second, 1<<32 - 2},
		{leasestore.MaxLeaseTime - 1, 1<<32 - 1},
		{leasestore.MaxLeaseTime, 1<<32 - 1},
		{1<<63 - 1, 1<<32 - 1},
	}
	for _, tt := range tests {
		if got := LeaseSeconds(tt.d); got != tt.want {
			t.Errorf("LeaseSeconds(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}
