package ipam_test

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go4.org/netipx"

	"github.com/vmnetkit/vmnetkit/ipam"
)

// TestFieldCase2HarvesterIPPool runs case 2 of docs/field-cases.md: the
// Harvester IPPool a user showed, built from exactly its strings (serverIP
// and router are Reserved, as the operator passes them), restored from its
// two allocations, counted, and allocated from.
//
// The counts differ from the ones that project shows (available 247, used 2)
// because it subtracts only what is used from the range's 249 addresses;
// vmnetkit keeps the 3 excluded addresses apart (Free 244 = 249 - 2 - 3).
// serverIP (.251) and router (.1) lie outside pool.start-pool.end, so they
// can never be handed out and count as neither size nor reserved.
func TestFieldCase2HarvesterIPPool(t *testing.T) {
	text := ipam.SpecText{
		CIDR:     "192.168.30.0/24",
		Start:    "192.168.30.2",
		End:      "192.168.30.250",
		Exclude:  []string{"192.168.30.5", "192.168.30.6", "192.168.30.7"},
		Reserved: []string{"192.168.30.251", "192.168.30.1"}, // serverIP, router
		Owners:   "MAC",
	}
	spec, err := text.Parse()
	if err != nil {
		t.Fatalf("the field's pool is refused: %v", err)
	}
	status := map[string]string{ // status.ipv4.allocated, as the field shows it
		"192.168.30.120": "fa:cf:8e:50:82:fc",
		"192.168.30.217": "76:69:f4:cb:e6:dd",
	}
	p, problems, err := ipam.RestoreAllocated(spec, status)
	if err != nil || len(problems) > 0 {
		t.Fatalf("RestoreAllocated: %v, problems %v", err, problems)
	}
	for addr, mac := range status {
		if got, ok := p.AddrOf(mac); !ok || got != netip.MustParseAddr(addr) {
			t.Errorf("AddrOf(%s) = %v, %t; want %s", mac, got, ok, addr)
		}
	}

	s := p.Stats()
	got := map[string]string{"size": s.Size.String(), "allocated": s.Allocated.String(), "excluded": s.Excluded.String(), "reserved": s.Reserved.String(), "free": s.Free.String()}
	want := map[string]string{"size": "249", "allocated": "2", "excluded": "3", "reserved": "0", "free": "244"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
	// That project's "available" is size minus used, excluded included.
	if size, _ := s.Size.Uint64(); size-2 != 247 {
		t.Errorf("size - used = %d, the field shows available 247", size-2)
	}

	// What the operator writes back: the two allocations and the excluded
	// markers; restoring it gives the same pool.
	wantMap := map[string]string{
		"192.168.30.120": "fa:cf:8e:50:82:fc", "192.168.30.217": "76:69:f4:cb:e6:dd",
		"192.168.30.5": "EXCLUDED", "192.168.30.6": "EXCLUDED", "192.168.30.7": "EXCLUDED",
	}
	written := ipam.FormatAllocated(p.Snapshot())
	if diff := cmp.Diff(wantMap, written); diff != "" {
		t.Errorf("FormatAllocated (-want +got):\n%s", diff)
	}
	again, problems, err := ipam.RestoreAllocated(spec, written)
	if err != nil || len(problems) > 0 {
		t.Fatalf("RestoreAllocated(FormatAllocated): %v, problems %v", err, problems)
	}
	if diff := cmp.Diff(p.Snapshot(), again.Snapshot(), cmpopts.EquateComparable(netip.Addr{}, netip.Prefix{}, netipx.IPRange{})); diff != "" {
		t.Errorf("snapshot after a round trip (-want +got):\n%s", diff)
	}

	// New VMs get .2, .3, .4, then .8: never the excluded .5-.7, the router
	// or the server; a known MAC keeps its address (in any MAC form).
	for i, want := range []string{"192.168.30.2", "192.168.30.3", "192.168.30.4", "192.168.30.8"} {
		a, err := p.Allocate("52:54:00:00:00:0" + string(rune('1'+i)))
		if err != nil || a != netip.MustParseAddr(want) {
			t.Errorf("Allocate #%d = %v, %v; want %s", i+1, a, err, want)
		}
	}
	if a, err := p.Allocate("FA-CF-8E-50-82-FC"); err != nil || a != netip.MustParseAddr("192.168.30.120") {
		t.Errorf("Allocate of a known MAC in another form = %v, %v; want 192.168.30.120", a, err)
	}
	if err := p.AllocateAddr(netip.MustParseAddr("192.168.30.6"), "52:54:00:00:00:99"); !errors.Is(err, ipam.ErrExcluded) {
		t.Errorf("AllocateAddr(excluded .6) = %v, want ErrExcluded", err)
	}
	if err := p.AllocateAddr(netip.MustParseAddr("192.168.30.251"), "52:54:00:00:00:99"); !errors.Is(err, ipam.ErrOutOfRange) {
		t.Errorf("AllocateAddr(serverIP .251) = %v, want ErrOutOfRange", err)
	}
}
