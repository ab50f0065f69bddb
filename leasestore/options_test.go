package leasestore_test

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/internal/netiptest"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

var (
	pool4 = netip.MustParsePrefix("10.0.0.0/24")
	pool6 = netip.MustParsePrefix("fd00:1::/64")
)

func TestOptionsValidate(t *testing.T) {
	valid4 := leasestore.Options{
		ServerIP:     netip.MustParseAddr("10.0.0.1"),
		Router:       netip.MustParseAddr("10.0.0.1"),
		DNS:          netiptest.Addrs("10.0.0.2", "1.1.1.1"),
		NTP:          netiptest.Addrs("10.0.0.3"),
		DomainName:   "lab.example.com.",
		DomainSearch: []string{"lab.example.com", "example.com", "x-1.y2"},
		LeaseTime:    time.Hour,
	}
	with := func(f func(o *leasestore.Options)) leasestore.Options {
		o := valid4
		f(&o)
		return o
	}
	for _, tc := range []struct {
		name    string
		prefix  netip.Prefix
		opts    leasestore.Options
		wantErr []string // one substring per expected error; none: valid
	}{
		{"zero options", pool4, leasestore.Options{}, nil},
		{"all set IPv4", pool4, valid4, nil},
		{"IPv6", pool6, leasestore.Options{ServerIP: netip.MustParseAddr("fd00:1::1"), DNS: netiptest.Addrs("fd00:1::53")}, nil},
		{"longest lease", pool4, with(func(o *leasestore.Options) { o.LeaseTime = leasestore.MaxLeaseTime }), nil},
		{"one second lease", pool4, with(func(o *leasestore.Options) { o.LeaseTime = time.Second }), nil},
		{"router of the other family", pool4, with(func(o *leasestore.Options) { o.Router = netip.MustParseAddr("fd00::1") }),
			[]string{`router "fd00::1" is not an IPv4 address`}},
		{"IPv4-mapped router in an IPv4 pool", pool4, with(func(o *leasestore.Options) { o.Router = netip.MustParseAddr("::ffff:10.0.0.1") }),
			[]string{`router "::ffff:10.0.0.1" is not an IPv4 address`}},
		{"server of the other family", pool6, leasestore.Options{ServerIP: netip.MustParseAddr("10.0.0.1")},
			[]string{`server "10.0.0.1" is not an IPv6 address`}},
		{"DNS of the other family", pool4, with(func(o *leasestore.Options) { o.DNS = netiptest.Addrs("10.0.0.2", "2001:4860:4860::8888") }),
			[]string{`DNS server "2001:4860:4860::8888" is not an IPv4 address`}},
		{"zero DNS entry", pool4, with(func(o *leasestore.Options) { o.DNS = []netip.Addr{{}} }),
			[]string{`DNS server "invalid IP" is not a valid address`}},
		{"zoned NTP", pool4, with(func(o *leasestore.Options) { o.NTP = netiptest.Addrs("fe80::1%eth0") }),
			[]string{`NTP server "fe80::1%eth0" has a zone`}},
		{"sub-second lease", pool4, with(func(o *leasestore.Options) { o.LeaseTime = 500 * time.Millisecond }),
			[]string{"lease time 500ms is shorter than one second"}},
		{"negative lease", pool4, with(func(o *leasestore.Options) { o.LeaseTime = -time.Hour }),
			[]string{"lease time -1h0m0s is shorter than one second"}},
		{"lease past 32 bits", pool4, with(func(o *leasestore.Options) { o.LeaseTime = leasestore.MaxLeaseTime + time.Second }),
			[]string{"is longer than 4294967295 seconds"}},
		{"domain with an empty label", pool4, with(func(o *leasestore.Options) { o.DomainName = "lab..example.com" }),
			[]string{`domain name "lab..example.com": empty label at offset 4`}},
		{"domain label with a leading hyphen", pool4, with(func(o *leasestore.Options) { o.DomainName = "-lab.example.com" }),
			[]string{`label "-lab" starts or ends with a hyphen`}},
		{"domain label of 64 bytes", pool4, with(func(o *leasestore.Options) { o.DomainName = strings.Repeat("a", 64) + ".com" }),
			[]string{"label at offset 0 is 64 bytes, more than 63"}},
		{"domain of 254 bytes", pool4, with(func(o *leasestore.Options) { o.DomainName = strings.Repeat("abc.", 63) + "ab" }),
			[]string{"254 bytes, more than 253"}},
		{"domain with an underscore", pool4, with(func(o *leasestore.Options) { o.DomainName = "my_lab.example.com" }),
			[]string{`invalid character '_' at offset 2`}},
		{"root domain", pool4, with(func(o *leasestore.Options) { o.DomainName = "." }),
			[]string{`domain name ".": empty label at offset 0`}},
		{"empty search entry", pool4, with(func(o *leasestore.Options) { o.DomainSearch = []string{"ok.example", ""} }),
			[]string{`search domain "": empty label at offset 0`}},
		{"several at once", pool4, leasestore.Options{Router: netip.MustParseAddr("fd00::1"), LeaseTime: time.Millisecond, DomainSearch: []string{"a b"}},
			[]string{`router "fd00::1"`, `search domain "a b": invalid character ' '`, "lease time 1ms"}},
		{"IPv6 lifetimes", pool6, leasestore.Options{PreferredLifetime: time.Hour, ValidLifetime: 2 * time.Hour}, nil},
		{"IPv6 preferred equal to valid", pool6, leasestore.Options{PreferredLifetime: time.Hour, ValidLifetime: time.Hour}, nil},
		{"IPv6 infinite lifetimes", pool6, leasestore.Options{PreferredLifetime: leasestore.Infinity, ValidLifetime: leasestore.Infinity}, nil},
		{"IPv6 lease time as valid lifetime", pool6, leasestore.Options{PreferredLifetime: time.Minute, LeaseTime: time.Hour}, nil},
		{"IPv6 preferred longer than valid", pool6, leasestore.Options{PreferredLifetime: 2 * time.Hour, ValidLifetime: time.Hour},
			[]string{"preferred lifetime 2h0m0s is longer than the valid lifetime 1h0m0s"}},
		{"IPv6 preferred longer than the lease time", pool6, leasestore.Options{PreferredLifetime: 2 * time.Hour, LeaseTime: time.Hour},
			[]string{"preferred lifetime 2h0m0s is longer than the valid lifetime 1h0m0s"}},
		{"IPv6 valid lifetime past 32 bits", pool6, leasestore.Options{ValidLifetime: leasestore.Infinity + time.Second},
			[]string{"valid lifetime 1193046h28m16s is longer than 4294967295 seconds"}},
		{"IPv6 sub-second preferred lifetime", pool6, leasestore.Options{PreferredLifetime: time.Millisecond},
			[]string{"preferred lifetime 1ms is shorter than one second"}},
		{"IPv6 with the DHCPv4-only options", pool6, leasestore.Options{
			Router: netip.MustParseAddr("fd00:1::1"), NTP: netiptest.Addrs("fd00:1::123"), DomainName: "lab.example", DomainSearch: []string{"lab.example"},
		}, []string{
			`router "fd00:1::1": DHCPv6 has no router option`,
			"1 NTP servers: NTP servers are served to IPv4 pools only",
			`domain name "lab.example": DHCPv6 has no domain name option`,
		}},
		{"IPv4 with lifetimes", pool4, leasestore.Options{PreferredLifetime: time.Hour},
			[]string{"preferred lifetime 1h0m0s, valid lifetime 0s: lifetimes are served to IPv6 pools only"}},
		{"invalid prefix", netip.Prefix{}, leasestore.Options{}, []string{`prefix "invalid Prefix" is not valid`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.opts.Validate(tc.prefix)
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("Validate(%s) = %v, want nil", tc.prefix, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate(%s) = nil, want errors containing %q", tc.prefix, tc.wantErr)
			}
			if !errors.Is(err, leasestore.ErrInvalidOptions) {
				t.Errorf("Validate error %q does not wrap ErrInvalidOptions", err)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tc.wantErr) {
				t.Errorf("Validate gave %d errors, want %d:\n%v", len(lines), len(tc.wantErr), err)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Validate error %q, want it to contain %q", err, want)
				}
			}
		})
	}
}

func TestOptionsValidateNil(t *testing.T) {
	var o *leasestore.Options
	if err := o.Validate(pool4); err != nil {
		t.Errorf("(*Options)(nil).Validate = %v, want nil", err)
	}
}

func TestOptionsEqual(t *testing.T) {
	a := &leasestore.Options{DNS: netiptest.Addrs("10.0.0.2"), LeaseTime: time.Hour}
	for _, tc := range []struct {
		name string
		a, b *leasestore.Options
		want bool
	}{
		{"same pointer", a, a, true},
		{"equal copy", a, &leasestore.Options{DNS: netiptest.Addrs("10.0.0.2"), LeaseTime: time.Hour}, true},
		{"nil and zero", nil, &leasestore.Options{}, true},
		{"nil and empty slices", nil, &leasestore.Options{DNS: []netip.Addr{}}, true},
		{"nil and set", nil, a, false},
		{"DNS order", &leasestore.Options{DNS: netiptest.Addrs("10.0.0.2", "10.0.0.3")}, &leasestore.Options{DNS: netiptest.Addrs("10.0.0.3", "10.0.0.2")}, false},
		{"lease time", a, &leasestore.Options{DNS: netiptest.Addrs("10.0.0.2"), LeaseTime: 2 * time.Hour}, false},
		{"search list", &leasestore.Options{DomainSearch: []string{"a"}}, &leasestore.Options{DomainSearch: []string{"b"}}, false},
		{"router", &leasestore.Options{Router: netip.MustParseAddr("10.0.0.1")}, &leasestore.Options{}, false},
		{"preferred lifetime", &leasestore.Options{PreferredLifetime: time.Hour}, &leasestore.Options{}, false},
		{"valid lifetime", &leasestore.Options{ValidLifetime: time.Hour}, &leasestore.Options{ValidLifetime: time.Minute}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.Equal(tc.b); got != tc.want {
				t.Errorf("a.Equal(b) = %v, want %v", got, tc.want)
			}
			if got := tc.b.Equal(tc.a); got != tc.want {
				t.Errorf("b.Equal(a) = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestOptionsLifetimes(t *testing.T) {
	for _, tc := range []struct {
		name             string
		opts             *leasestore.Options
		preferred, valid time.Duration
	}{
		{"nil", nil, 0, 0},
		{"none set", &leasestore.Options{}, 0, 0},
		{"lease time alone", &leasestore.Options{LeaseTime: time.Hour}, time.Hour, time.Hour},
		{"valid lifetime over lease time", &leasestore.Options{LeaseTime: time.Hour, ValidLifetime: 2 * time.Hour}, 2 * time.Hour, 2 * time.Hour},
		{"both lifetimes", &leasestore.Options{PreferredLifetime: time.Minute, ValidLifetime: time.Hour}, time.Minute, time.Hour},
		{"preferred alone", &leasestore.Options{PreferredLifetime: time.Minute}, time.Minute, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, v := tc.opts.Lifetimes()
			if p != tc.preferred || v != tc.valid {
				t.Errorf("Lifetimes() = %s, %s; want %s, %s", p, v, tc.preferred, tc.valid)
			}
		})
	}
}
