package agent

import (
	"errors"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"github.com/google/go-cmp/cmp"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
	"go4.org/netipx"
)

var netipComparers = cmp.Options{
	cmp.Comparer(func(a, b netip.Addr) bool { return a == b }),
	cmp.Comparer(func(a, b netip.Prefix) bool { return a == b }),
	cmp.Comparer(func(a, b netipx.IPRange) bool { return a == b }),
}

func TestPoolConfig(t *testing.T) {
	data, err := os.ReadFile("../poolsource/testdata/pool.json") // the pool source's example pool
	if err != nil {
		t.Fatal(err)
	}
	p, err := poolsource.DecodePool(data)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Name(), "default/lab"; got != want {
		t.Errorf("Name = %q, want %q", got, want)
	}
	spec, opts, problems, err := p.Config()
	if err != nil || len(problems) > 0 {
		t.Fatalf("Config: %v, problems %v", err, problems)
	}
	a := netip.MustParseAddr
	wantSpec := ipam.Spec{
		Prefix: netip.MustParsePrefix("10.20.0.0/24"),
		Start:  a("10.20.0.10"),
		End:    a("10.20.0.200"),
		Exclude: []netipx.IPRange{
			netipx.IPRangeFrom(a("10.20.0.50"), a("10.20.0.59")),
			netipx.IPRangeFrom(a("10.20.0.77"), a("10.20.0.77")),
		},
		Reserved: []netip.Addr{a("10.20.0.2"), a("10.20.0.1")},
		Owners:   ipam.MACOwners,
	}
	if diff := cmp.Diff(wantSpec, spec, netipComparers); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
	wantOpts := leasestore.Options{
		ServerIP: a("10.20.0.2"), Router: a("10.20.0.1"),
		DNS: []netip.Addr{a("10.20.0.2")}, NTP: []netip.Addr{a("10.20.0.3")},
		DomainName: "lab.example", DomainSearch: []string{"lab.example", "example"},
		LeaseTime: time.Hour,
	}
	if diff := cmp.Diff(wantOpts, opts, netipComparers); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}

	u, err := New(nil, WithLogger(quietLogger())).Apply(p)
	if err != nil || len(u.Problems) > 0 {
		t.Fatalf("Apply: %v, problems %v", err, u.Problems)
	}
	if u.Leases != 2 || len(u.Plan.Add) != 2 {
		t.Errorf("Apply: %d leases, %d adds; want 2, 2", u.Leases, len(u.Plan.Add))
	}
}

func TestPoolConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		spec func(*poolsource.PoolSpec)
		want string // in the error
	}{
		{"no cidr", func(s *poolsource.PoolSpec) { s.CIDR = "" }, `spec cidr "": required`},
		{"bad cidr", func(s *poolsource.PoolSpec) { s.CIDR = "10.77.0.0/33" }, `spec cidr "10.77.0.0/33"`},
		{"IPv6 cidr", func(s *poolsource.PoolSpec) { s.CIDR = "fd00::/64" }, `spec.cidr "fd00::/64": not IPv4: this agent serves DHCPv4`},
		{"cidr with host bits", func(s *poolsource.PoolSpec) { s.CIDR = "10.77.0.1/24" }, `spec cidr "10.77.0.1/24": prefix has host bits set (want 10.77.0.0/24)`},
		{"bad rangeStart", func(s *poolsource.PoolSpec) { s.RangeStart = "10.77.0" }, `spec rangeStart "10.77.0"`},
		{"bad rangeEnd", func(s *poolsource.PoolSpec) { s.RangeEnd = "x" }, `spec rangeEnd "x"`},
		{"range outside cidr", func(s *poolsource.PoolSpec) { s.RangeEnd = "10.78.0.1" }, "outside prefix"},
		{"bad exclude", func(s *poolsource.PoolSpec) { s.Exclude = []string{"10.77.0.9-10.77.0.1"} }, `spec exclude[0] "10.77.0.9-10.77.0.1"`},
		{"bad exclude prefix", func(s *poolsource.PoolSpec) { s.Exclude = []string{"10.77.0.0/99"} }, `spec exclude[0] "10.77.0.0/99"`},
		{
			"exclude prefix with host bits",
			func(s *poolsource.PoolSpec) { s.Exclude = []string{"10.77.0.100-10.77.0.109", "10.77.0.77/24"} },
			`spec exclude[1] "10.77.0.77/24": prefix has host bits set (want 10.77.0.0/24)`,
		},
		{"no serverIP", func(s *poolsource.PoolSpec) { s.ServerIP = "" }, `spec.serverIP "": required`},
		{"bad serverIP", func(s *poolsource.PoolSpec) { s.ServerIP = "server" }, `spec serverIP "server"`},
		{"IPv6 serverIP", func(s *poolsource.PoolSpec) { s.ServerIP = "fd00::2" }, `spec.serverIP "fd00::2": not IPv4`},
		{
			"IPv4-mapped serverIP",
			func(s *poolsource.PoolSpec) { s.ServerIP = "::ffff:10.77.0.2" },
			`spec serverIP "::ffff:10.77.0.2": IPv4-mapped IPv6 address: write 10.77.0.2`,
		},
		{
			"IPv4-mapped router", // the router is reserved: part of the spec, not only an option
			func(s *poolsource.PoolSpec) { s.Router = "::ffff:10.77.0.1" },
			`spec router "::ffff:10.77.0.1": IPv4-mapped IPv6 address: write 10.77.0.1`,
		},
		{"bad strategy", func(s *poolsource.PoolSpec) { s.Strategy = "Random" }, `spec strategy "Random": want "Lowest" or "Sequential"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := labtest.Pool(dhcp4test.LabAllocated())
			tt.spec(&p.Spec)
			_, _, _, err := p.Config()
			if !errors.Is(err, poolsource.ErrInvalidPool) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Config error = %v; want poolsource.ErrInvalidPool containing %q", err, tt.want)
			}
			if strings.Contains(tt.want, "spec ") && !errors.Is(err, ipam.ErrInvalidSpec) {
				t.Errorf("Config error = %v; want one wrapping ipam.ErrInvalidSpec", err)
			}
			// A rejected pool leaves the table being served alone.
			a := newAgent(t, labtest.Pool(dhcp4test.LabAllocated()), logr.Discard())
			before := a.Table()
			if _, err := a.Apply(p); err == nil {
				t.Fatal("Apply accepted the pool")
			}
			if a.Table() != before {
				t.Error("Apply of a rejected pool swapped the table")
			}
		})
	}
}

// TestPoolProblems checks that bad entries and options are left out and
// reported, and the rest is served.
func TestPoolProblems(t *testing.T) {
	p := labtest.Pool(map[string]string{
		"10.77.0.10":  dhcp4test.MACA,
		"10.77.0.11":  "not-a-mac",
		"10.77.0.12":  dhcp4test.MACB,
		"10.77.0.250": "52:54:00:aa:00:03", // outside rangeEnd
		"10.77.00.13": "52:54:00:aa:00:04", // not canonical
	})
	p.Spec.DNS = []string{"10.77.0.2", "dns.example", "::ffff:10.77.0.3"}
	p.Spec.NTP = []string{"fd00::3"}
	logs := &logtest.Buffer{}
	u, err := New(nil, WithLogger(logtest.Logger(logs, packetLevel))).Apply(p)
	if err != nil {
		t.Fatal(err)
	}
	// In the order the agent reports them: its own, ipam's, leasestore's.
	// The pool's owners are MACs (IPPoolSpec.SpecText), so ipam, not
	// leasestore, refuses the owner that is not one.
	want := []struct {
		is       error
		contains string
	}{
		{poolsource.ErrInvalidPool, `spec.dns[1]: ipam: ParseAddr("dns.example")`},
		{ipam.ErrInvalidAddr, `spec.dns[2]: ipam: ParseAddr("::ffff:10.77.0.3"): IPv4-mapped IPv6 address: write 10.77.0.3`},
		{ipam.ErrInvalidAddr, `"10.77.00.13"`},
		{ipam.ErrInvalidOwner, `"not-a-mac"`},
		{ipam.ErrOutOfRange, `"10.77.0.250"`},
		{leasestore.ErrInvalidOptions, `"fd00::3"`},
	}
	if len(u.Problems) != len(want) {
		t.Fatalf("problems: %q; want %d", u.Problems, len(want))
	}
	for i, w := range want {
		if got := u.Problems[i]; !errors.Is(got, w.is) || !strings.Contains(got.Error(), w.contains) {
			t.Errorf("problem %d = %q; want one wrapping %q and containing %s", i, got, w.is, w.contains)
		}
	}
	if u.Leases != 2 {
		t.Errorf("%d leases, want 2 (macA and macB)", u.Leases)
	}
	if n := strings.Count(logs.String(), `] "problem" pool=`); n != len(want) {
		t.Errorf("logged %d problems, want %d:\n%s", n, len(want), logs)
	}
}

// FuzzLoad feeds arbitrary files to the agent: decoding, conversion and
// the core's build must never panic, and a rejected file must leave the
// table alone.
func FuzzLoad(f *testing.F) {
	seed, err := os.ReadFile("../poolsource/testdata/pool.json") // the pool source's example pool
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"spec":{"cidr":"10.0.0.0/30","serverIP":"10.0.0.1"},"status":{"allocated":{"10.0.0.2":"aabb.ccdd.eeff","10.0.0.3":"x"}}}`))
	f.Add([]byte(`{"spec":{"cidr":"10.0.0.0/31","serverIP":"10.0.0.0","leaseTime":0,"exclude":["10.0.0.1/32"]}}`))
	f.Add([]byte(`{"spec":{"cidr":"0.0.0.0/0","serverIP":"1.1.1.1","rangeStart":"255.255.255.254"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a := newAgent(t, labtest.Pool(dhcp4test.LabAllocated()), logr.Discard())
		before := a.Table()
		if _, err := load(a, data); err != nil && a.Table() != before {
			t.Fatalf("rejected file %q swapped the table", data)
		}
	})
}

// load decodes data as a pool and applies it, as a pool source does.
func load(a *Agent, data []byte) (Update, error) {
	p, err := poolsource.DecodePool(data)
	if err != nil {
		return Update{}, err
	}
	return a.Apply(p)
}
