package incluster

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
)

func addresses(as ...string) []ipamv1.IPAddress {
	out := make([]ipamv1.IPAddress, len(as))
	for i, a := range as {
		out[i].Spec.Address = a
	}
	return out
}

// TestAllocate: the baseline picks what the in-cluster provider picks, the
// lowest address of the pool's set not in use.
func TestAllocate(t *testing.T) {
	tests := []struct {
		name string
		spec v1alpha1.PoolSpec
		used []ipamv1.IPAddress
		want string // "" for no address
	}{
		{"empty pool: past network address and gateway",
			v1alpha1.PoolSpec{Addresses: []string{"10.0.0.0/29"}, Prefix: 29, Gateway: "10.0.0.1"}, nil, "10.0.0.2"},
		{"the lowest free one",
			v1alpha1.PoolSpec{Addresses: []string{"10.0.0.0/29"}, Prefix: 29, Gateway: "10.0.0.1"}, addresses("10.0.0.2", "10.0.0.4"), "10.0.0.3"},
		{"excluded addresses skipped",
			v1alpha1.PoolSpec{Addresses: []string{"10.0.0.0/29"}, Prefix: 29, Gateway: "10.0.0.1", ExcludedAddresses: []string{"10.0.0.2-10.0.0.3"}}, nil, "10.0.0.4"},
		{"exhausted: the broadcast address is not handed out",
			v1alpha1.PoolSpec{Addresses: []string{"10.0.0.0/30"}, Prefix: 30, Gateway: "10.0.0.1"}, addresses("10.0.0.2"), ""},
		{"reserved addresses allowed",
			v1alpha1.PoolSpec{Addresses: []string{"10.0.0.0/30"}, Prefix: 30, AllocateReservedIPAddresses: true}, addresses("10.0.0.0", "10.0.0.1"), "10.0.0.2"},
		{"IPv6 range",
			v1alpha1.PoolSpec{Addresses: []string{"fd00::-fd00::ff"}, Prefix: 64, Gateway: "fd00::1"}, addresses("fd00::2"), "fd00::3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Allocate(&tt.spec, tt.used)
			got := ""
			if err == nil {
				got = a.String()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Allocate (-want +got):\n%s (error %v)", diff, err)
			}
		})
	}
}
