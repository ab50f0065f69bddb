package poolsource

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestConfig6 reads the IPv6 part of pools decoded from JSON, as the file
// and the API server give them.
func TestConfig6(t *testing.T) {
	const head = `{"metadata": {"name": "lab", "namespace": "default"}, "spec": {"cidr": "10.77.0.0/24", "serverIP": "10.77.0.2"`
	for _, tc := range []struct {
		name     string
		json     string
		ok       bool
		err      bool
		problems int
		prefix   string
		dns      []netip.Addr
		lifes    [2]time.Duration
		alloc    map[string]string
	}{
		{name: "no IPv6 part", json: head + `}}`},
		{name: "dual stack", ok: true, prefix: "2001:db8:30::/64",
			json: head + `, "ipv6": {"cidr": "2001:db8:30::/64", "dns": ["2001:db8:30::53"], "preferredLifetime": "30m", "validLifetime": "1h"}},
			 "status": {"ipv6": {"allocated": {"2001:db8:30::a": "52:54:00:aa:00:01"}}}}`,
			dns: []netip.Addr{netip.MustParseAddr("2001:db8:30::53")}, lifes: [2]time.Duration{30 * time.Minute, time.Hour},
			alloc: map[string]string{"2001:db8:30::a": "52:54:00:aa:00:01"}},
		{name: "a bad name server is left out and reported", ok: true, problems: 1, prefix: "2001:db8:30::/64",
			json: head + `, "ipv6": {"cidr": "2001:db8:30::/64", "dns": ["10.0.0.1", "2001:db8:30::53"]}}}`,
			dns:  []netip.Addr{netip.MustParseAddr("2001:db8:30::53")}},
		{name: "an IPv4 cidr in the IPv6 part is refused", ok: true, err: true,
			json: head + `, "ipv6": {"cidr": "10.1.0.0/24"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := DecodePool([]byte(tc.json))
			if err != nil {
				t.Fatal(err)
			}
			spec, opts, alloc, ok, problems, err := p.Config6()
			if ok != tc.ok || (err != nil) != tc.err || len(problems) != tc.problems {
				t.Fatalf("ok %v, err %v, problems %v; want ok %v, an error %v, %d problems", ok, err, problems, tc.ok, tc.err, tc.problems)
			}
			if err != nil {
				if !errors.Is(err, ErrInvalidPool) {
					t.Errorf("error %v does not wrap ErrInvalidPool", err)
				}
				return
			}
			for _, pr := range problems {
				if !errors.Is(pr, ErrInvalidPool) {
					t.Errorf("problem %v does not wrap ErrInvalidPool", pr)
				}
			}
			got := fmt.Sprint(spec.Prefix, opts.DNS, [2]time.Duration{opts.PreferredLifetime, opts.ValidLifetime}, alloc)
			want := fmt.Sprint(netip.Prefix{}, []netip.Addr(nil), [2]time.Duration{}, map[string]string(nil))
			if tc.ok {
				want = fmt.Sprint(netip.MustParsePrefix(tc.prefix), tc.dns, tc.lifes, tc.alloc)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Config6 (-want +got):\n%s", diff)
			}
		})
	}
}
