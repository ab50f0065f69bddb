package dhcp4wire

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
)

// TestFit: what Fit places where, and what it reports left out, on parts
// small enough to count by hand. The options field of a message of limit
// bytes holds limit - 240 (header and cookie) - 1 (end option) bytes; a
// value of n bytes costs n + 2.
func TestFit(t *testing.T) {
	mandatory := func(code uint8, v ...byte) Part {
		p := Whole(code, v)
		p.Mandatory = true
		return p
	}
	dns := func(overload bool) Part {
		var addrs []netip.Addr
		for i := range 5 {
			addrs = append(addrs, netip.AddrFrom4([4]byte{10, 0, 0, byte(i + 1)}))
		}
		p := addrList(6, addrs)
		p.Overload = overload
		return p
	}
	dnsBytes := func(n int) []byte { return dns(false).Data[:4*n] }
	msgType, sid := mandatory(53, 2), mandatory(54, 10, 0, 0, 2)
	type result struct {
		Options map[uint8][]byte
		File    []byte
		Cuts    []Cut
	}
	tests := []struct {
		name  string
		parts []Part
		limit int
		want  result
	}{{
		name:  "everything fits",
		parts: []Part{msgType, sid, dns(true)},
		limit: 548,
		want:  result{Options: map[uint8][]byte{53: {2}, 54: {10, 0, 0, 2}, 6: dnsBytes(5)}},
	}, {
		// 23 bytes of room: 3 for 53, 6 for 54, 14 for 3 name servers.
		name:  "a list cut to the entries that fit in the options field",
		parts: []Part{msgType, sid, dns(false)},
		limit: 264,
		want: result{
			Options: map[uint8][]byte{53: {2}, 54: {10, 0, 0, 2}, 6: dnsBytes(3)},
			Cuts:    []Cut{{Code: 6, Kept: 3, Of: 5}},
		},
	}, {
		// The same room, less 3 for option 52: the list goes whole to the
		// file field, which keeps more than the cut.
		name:  "an overloadable list carried whole in the file field",
		parts: []Part{msgType, sid, dns(true)},
		limit: 264,
		want: result{
			Options: map[uint8][]byte{53: {2}, 54: {10, 0, 0, 2}, 52: {1}},
			File:    append(append([]byte{6, 20}, dnsBytes(5)...), 255),
		},
	}, {
		name:  "an option kept whole or not at all is dropped",
		parts: []Part{msgType, sid, Whole(15, []byte("example.org"))},
		limit: 250,
		want: result{
			Options: map[uint8][]byte{53: {2}, 54: {10, 0, 0, 2}},
			Cuts:    []Cut{{Code: 15, Kept: 0, Of: 1}},
		},
	}, {
		name:  "mandatory parts kept past the limit",
		parts: []Part{msgType, sid},
		limit: 245,
		want:  result{Options: map[uint8][]byte{53: {2}, 54: {10, 0, 0, 2}}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := &dhcpv4.DHCPv4{Options: dhcpv4.Options{}}
			trim := Fit(resp, tt.parts, tt.limit)
			got := result{Options: map[uint8][]byte(resp.Options), Cuts: trim.Cuts}
			if resp.BootFileName != "" {
				got.File = []byte(resp.BootFileName)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Fit (-want +got):\n%s", diff)
			}
			if trim.Limit != tt.limit {
				t.Errorf("Trim.Limit = %d, want %d", trim.Limit, tt.limit)
			}
		})
	}
}

// TestCutString: the cuts as the agent's log shows them.
func TestCutString(t *testing.T) {
	trim := Trim{Cuts: []Cut{{Code: 6, Kept: 61, Of: 300}, {Code: 82, Kept: 0, Of: 1}, {Code: 200, Kept: 0, Of: 1}}}
	want := "6 dns 61/300; 82 relay agent info dropped; 200 option dropped"
	if diff := cmp.Diff(want, trim.String()); diff != "" {
		t.Errorf("Trim.String (-want +got):\n%s", diff)
	}
}
