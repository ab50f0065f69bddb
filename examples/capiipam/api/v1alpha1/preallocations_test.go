package v1alpha1_test

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
)

// nodes is a pool of 10.0.0.0/24's .0 to .15 and .20 to .29, less .8,
// with .1 the gateway: .0 and .255 are the subnet's network and broadcast
// addresses.
func nodes(pre map[string]v1alpha1.PreAllocatedAddress) v1alpha1.PoolSpec {
	return v1alpha1.PoolSpec{Addresses: []string{"10.0.0.0/28", "10.0.0.20-10.0.0.29", "10.0.0.255"}, Prefix: 24,
		Gateway: "10.0.0.1", ExcludedAddresses: []string{"10.0.0.8"}, PreAllocations: pre}
}

// TestParsePreAllocations: each invalid entry of spec.preAllocations is
// one field error naming its key, the valid ones are parsed.
func TestParsePreAllocations(t *testing.T) {
	v6 := v1alpha1.PoolSpec{Addresses: []string{"fd00::/120"}, Prefix: 64}
	tests := []struct {
		name      string
		spec      v1alpha1.PoolSpec
		namespace string // "" for a GlobalVMNetIPPool
		want      map[types.NamespacedName]netip.Addr
		wantErrs  []string
	}{
		{name: "none", spec: nodes(nil), namespace: "fleet"},
		{
			name: "a claim of the pool's namespace", spec: nodes(map[string]v1alpha1.PreAllocatedAddress{"web-0": "10.0.0.5", "web-1": "10.0.0.21"}), namespace: "fleet",
			want: map[types.NamespacedName]netip.Addr{{Namespace: "fleet", Name: "web-0"}: netip.MustParseAddr("10.0.0.5"), {Namespace: "fleet", Name: "web-1"}: netip.MustParseAddr("10.0.0.21")},
		},
		{
			name: "a global pool's namespace/name", spec: nodes(map[string]v1alpha1.PreAllocatedAddress{"a/web-0": "10.0.0.5"}),
			want: map[types.NamespacedName]netip.Addr{{Namespace: "a", Name: "web-0"}: netip.MustParseAddr("10.0.0.5")},
		},
		{
			name: "outside the pool", spec: nodes(map[string]v1alpha1.PreAllocatedAddress{"web-0": "10.0.9.1", "web-1": "10.0.0.17", "web-2": "fd00::1"}), namespace: "fleet",
			want: map[types.NamespacedName]netip.Addr{},
			wantErrs: []string{
				`spec.preAllocations[web-0]: Invalid value: "10.0.9.1": 10.0.9.1 is not in spec.addresses`,
				`spec.preAllocations[web-1]: Invalid value: "10.0.0.17": 10.0.0.17 is not in spec.addresses`,
				`spec.preAllocations[web-2]: Invalid value: "fd00::1": fd00::1 is not in spec.addresses`,
			},
		},
		{
			name: "never handed out", spec: nodes(map[string]v1alpha1.PreAllocatedAddress{"a": "10.0.0.8", "b": "10.0.0.1", "c": "10.0.0.0", "d": "10.0.0.255"}), namespace: "fleet",
			want: map[types.NamespacedName]netip.Addr{},
			wantErrs: []string{
				`spec.preAllocations[a]: Invalid value: "10.0.0.8": 10.0.0.8 is in spec.excludedAddresses[0] (10.0.0.8)`,
				`spec.preAllocations[b]: Invalid value: "10.0.0.1": 10.0.0.1 is spec.gateway`,
				`spec.preAllocations[c]: Invalid value: "10.0.0.0": 10.0.0.0 is the network address of 10.0.0.0/24, handed out only with spec.allocateReservedIPAddresses`,
				`spec.preAllocations[d]: Invalid value: "10.0.0.255": 10.0.0.255 is the broadcast address of 10.0.0.0/24, handed out only with spec.allocateReservedIPAddresses`,
			},
		},
		{
			name: "an IPv6 subnet's anycast address", spec: v1alpha1.PoolSpec{Addresses: v6.Addresses, Prefix: 120, PreAllocations: map[string]v1alpha1.PreAllocatedAddress{"ns/a": "fd00::"}},
			want:     map[types.NamespacedName]netip.Addr{},
			wantErrs: []string{`spec.preAllocations[ns/a]: Invalid value: "fd00::": fd00:: is the subnet-router anycast address of fd00::/120, handed out only with spec.allocateReservedIPAddresses`},
		},
		{
			name: "one address for two claims, in two forms", spec: v1alpha1.PoolSpec{Addresses: v6.Addresses, Prefix: 64,
				PreAllocations: map[string]v1alpha1.PreAllocatedAddress{"ns/a": "fd00::5", "ns/b": "fd00:0::5", "ns/c": "fd00::6"}},
			want:     map[types.NamespacedName]netip.Addr{{Namespace: "ns", Name: "a"}: netip.MustParseAddr("fd00::5"), {Namespace: "ns", Name: "c"}: netip.MustParseAddr("fd00::6")},
			wantErrs: []string{`spec.preAllocations[ns/b]: Invalid value: "fd00:0::5": fd00::5 is pre-allocated to ns/a too`},
		},
		{
			name: "not an address", spec: nodes(map[string]v1alpha1.PreAllocatedAddress{"web-0": "10.0.0.300", "web-1": "10.0.0.5/32"}), namespace: "fleet",
			want: map[types.NamespacedName]netip.Addr{},
			wantErrs: []string{
				`spec.preAllocations[web-0]: Invalid value: "10.0.0.300": ipam: ParseAddr("10.0.0.300"): IPv4 field has value >255: invalid address`,
				`spec.preAllocations[web-1]: Invalid value: "10.0.0.5/32": ipam: ParseAddr("10.0.0.5/32"): unexpected character (at "/32"): invalid address`,
			},
		},
		{
			name: "keys that name no claim", spec: nodes(map[string]v1alpha1.PreAllocatedAddress{"other/web-0": "10.0.0.5", "Web_1": "10.0.0.6"}), namespace: "fleet",
			want: map[types.NamespacedName]netip.Addr{},
			wantErrs: []string{
				`spec.preAllocations[Web_1]: Invalid value: "Web_1": name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
				`spec.preAllocations[other/web-0]: Invalid value: "other/web-0": a VMNetIPPool serves the claims of its own namespace: the key is a claim's name`,
			},
		},
		{
			name: "a global pool's key without its namespace", spec: nodes(map[string]v1alpha1.PreAllocatedAddress{"web-0": "10.0.0.5", "a/b/c": "10.0.0.6"}),
			want: map[types.NamespacedName]netip.Addr{},
			wantErrs: []string{
				`spec.preAllocations[a/b/c]: Invalid value: "a/b/c": name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
				`spec.preAllocations[web-0]: Invalid value: "web-0": a GlobalVMNetIPPool's key is a claim's namespace/name`,
			},
		},
		{
			name: "addresses that do not parse: only the text is checked", spec: v1alpha1.PoolSpec{Addresses: []string{"10.0.0.5/24"}, Prefix: 24,
				PreAllocations: map[string]v1alpha1.PreAllocatedAddress{"a": "10.9.9.9", "b": "x"}}, namespace: "fleet",
			want:     map[types.NamespacedName]netip.Addr{{Namespace: "fleet", Name: "a"}: netip.MustParseAddr("10.9.9.9")},
			wantErrs: []string{`spec.preAllocations[b]: Invalid value: "x": ipam: ParseAddr("x"): unable to parse IP: invalid address`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := tt.spec.ParsePreAllocations(tt.namespace)
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); diff != "" {
				t.Errorf("pre-allocations (-want +got):\n%s", diff)
			}
			var gotErrs []string
			for _, e := range errs {
				gotErrs = append(gotErrs, e.Error())
			}
			if diff := cmp.Diff(tt.wantErrs, gotErrs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckAddress: whether a pool hands out an address, and if not,
// whether it lists it.
func TestCheckAddress(t *testing.T) {
	tests := []struct {
		name, addr string
		listed     bool   // want an *AddressError with Listed
		why        string // "" for nil
	}{
		{name: "handed out", addr: "10.0.0.5"},
		{name: "listed alone", addr: "10.0.0.255", why: "is the broadcast address of 10.0.0.0/24, handed out only with spec.allocateReservedIPAddresses", listed: true},
		{name: "in a gap of the list", addr: "10.0.0.16", why: "is not in spec.addresses"},
		{name: "other family", addr: "::ffff:10.0.0.5", why: "is not in spec.addresses"},
		{name: "excluded", addr: "10.0.0.8", why: "is in spec.excludedAddresses[0] (10.0.0.8)", listed: true},
		{name: "gateway", addr: "10.0.0.1", why: "is spec.gateway", listed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := nodes(nil).CheckAddress(netip.MustParseAddr(tt.addr))
			var ae *v1alpha1.AddressError
			switch {
			case tt.why == "" && err != nil:
				t.Fatalf("CheckAddress(%s) = %v, want nil", tt.addr, err)
			case tt.why == "":
				return
			case !errors.As(err, &ae):
				t.Fatalf("CheckAddress(%s) = %v, want an *AddressError", tt.addr, err)
			}
			if diff := cmp.Diff(v1alpha1.AddressError{Addr: netip.MustParseAddr(tt.addr), Listed: tt.listed, Why: tt.why}, *ae,
				cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); diff != "" {
				t.Errorf("CheckAddress(%s) (-want +got):\n%s", tt.addr, diff)
			}
		})
	}
	if err := (v1alpha1.PoolSpec{Addresses: []string{"10.0.0.5/24"}, Prefix: 24}).CheckAddress(netip.MustParseAddr("10.0.0.5")); err == nil {
		t.Error("CheckAddress on addresses that do not parse: nil, want their error")
	}
}
