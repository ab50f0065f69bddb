package leasestore_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// TestFieldCase2HarvesterIPPool runs case 2 of docs/field-cases.md: the lease
// table an agent rebuilds from the Harvester IPPool object alone (its spec
// strings and status.ipv4.allocated, excluded markers included), serving
// each MAC its address with router .1, server identifier .251 and a 300 s
// lease. Excluded addresses are no lease.
func TestFieldCase2HarvesterIPPool(t *testing.T) {
	spec, err := ipam.SpecText{
		CIDR:     "192.168.30.0/24",
		Start:    "192.168.30.2",
		End:      "192.168.30.250",
		Exclude:  []string{"192.168.30.5", "192.168.30.6", "192.168.30.7"},
		Reserved: []string{"192.168.30.251", "192.168.30.1"},
		Owners:   "MAC",
	}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	snap, problems := ipam.ParseAllocated(spec, map[string]string{
		"192.168.30.120": "fa:cf:8e:50:82:fc",
		"192.168.30.217": "76:69:f4:cb:e6:dd",
		"192.168.30.5":   "EXCLUDED", "192.168.30.6": "EXCLUDED", "192.168.30.7": "EXCLUDED",
	})
	if len(problems) > 0 {
		t.Fatalf("ParseAllocated problems: %v", problems)
	}
	opts := leasestore.Options{
		ServerIP:  netip.MustParseAddr("192.168.30.251"),
		Router:    netip.MustParseAddr("192.168.30.1"),
		LeaseTime: 300 * time.Second,
	}
	s, bad := leasestore.Build(snap, opts)
	if len(bad) > 0 {
		t.Fatalf("Build problems: %v", bad)
	}

	var got []string
	for l := range s.All() {
		got = append(got, l.String())
	}
	want := []string{"fa:cf:8e:50:82:fc 192.168.30.120/24", "76:69:f4:cb:e6:dd 192.168.30.217/24"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("leases (-want +got):\n%s", diff)
	}
	l, ok := s.Lookup(leasestore.MustParseMAC("FA:CF:8E:50:82:FC"))
	if !ok || l.Addr != netip.MustParseAddr("192.168.30.120") || l.Prefix != netip.MustParsePrefix("192.168.30.0/24") {
		t.Fatalf("Lookup(fa:cf:8e:50:82:fc) = %v, %t", l, ok)
	}
	if !l.Options.Equal(&opts) {
		t.Errorf("options served = %+v, want %+v", *l.Options, opts)
	}
	if l, ok := s.LookupAddr(netip.MustParseAddr("192.168.30.217")); !ok || l.MAC != leasestore.MustParseMAC("76:69:f4:cb:e6:dd") {
		t.Errorf("LookupAddr(.217) = %v, %t", l, ok)
	}
	for _, a := range []string{"192.168.30.5", "192.168.30.6", "192.168.30.7", "192.168.30.1", "192.168.30.251"} {
		if l, ok := s.LookupAddr(netip.MustParseAddr(a)); ok {
			t.Errorf("LookupAddr(%s) = %v: excluded and reserved addresses are no lease", a, l)
		}
	}
}
