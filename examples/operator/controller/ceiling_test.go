package controller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/operator/controller"
)

// statusMapFamilies are the address spellings the ceiling is measured with:
// the shortest and longest an operator writes in practice. Owners are MACs
// (17 characters), as the operator writes them.
var statusMapFamilies = []struct {
	name string
	spec v1alpha1.IPPoolSpec
	addr func(i int) string
}{
	{
		// A /12 handed out from its start: "10.16.0.1", "10.16.0.2", ...
		// (9 to 12 characters, as in a /16).
		name: "IPv4",
		spec: v1alpha1.IPPoolSpec{Network: "n", CIDR: "10.16.0.0/12"},
		addr: func(i int) string {
			return netip.AddrFrom4([4]byte{10, byte(16 + (i+1)>>16), byte((i + 1) >> 8), byte(i + 1)}).String()
		},
	},
	{
		// A /64 whose range starts deep inside it: every address is spelled
		// in full, 39 characters ("fd00:20:0:1:8000:0:1:2345" is shorter:
		// the worst case keeps no zero group).
		name: "IPv6 /64, full-length addresses",
		spec: v1alpha1.IPPoolSpec{Network: "n", CIDR: "fd00:20:1:1::/64"},
		addr: func(i int) string {
			return fmt.Sprintf("fd00:20:1:1:8a5b:9c6d:%04x:%04x", 0x1000+(i>>16), 0x1000+(i&0xffff))
		},
	},
}

// TestStatusMapCeiling measures, on the real API server, how many
// allocations one IPPool's status map holds before the API server refuses
// the status write (etcd's request size), to within 250 entries by
// searchCeiling, and checks that DefaultMaxAllocations stays below it with
// a margin of 20%. Run with -v to see the numbers and the API server's
// error.
func TestStatusMapCeiling(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "ceiling")
	for i, fam := range statusMapFamilies {
		t.Run(fam.name, func(t *testing.T) {
			pool := &v1alpha1.IPPool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("pool-%d", i)}, Spec: fam.spec}
			if err := c.Create(ctx, pool); err != nil {
				t.Fatal(err)
			}
			fill := func(n int) map[string]string {
				m := make(map[string]string, n)
				for j := range n {
					m[fam.addr(j)] = fmt.Sprintf("52:54:00:%02x:%02x:%02x", j>>16, (j>>8)&0xff, j&0xff)
				}
				if len(m) != n {
					t.Fatalf("%d distinct addresses, want %d", len(m), n)
				}
				return m
			}
			write := func(n int) error {
				p := &v1alpha1.IPPool{}
				if err := c.Get(ctx, client.ObjectKeyFromObject(pool), p); err != nil {
					t.Fatal(err)
				}
				p.Status.Allocated = fill(n)
				p.Status.Used = fmt.Sprint(n)
				return c.Status().Update(ctx, p)
			}
			// The default limit with a 20% margin must be written; from
			// that object's size, the search aims at the ceiling.
			low := controller.DefaultMaxAllocations * 6 / 5
			if err := write(low); err != nil {
				t.Fatalf("DefaultMaxAllocations = %d is within 20%% of the ceiling: write %d entries: %v", controller.DefaultMaxAllocations, low, err)
			}
			at := &v1alpha1.IPPool{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(pool), at); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			ok, bad, lastErr := searchCeiling(t, write, guessCeiling(t, at, low, func(n int) int { return jsonSize(t, fill(n)) }), 250)
			if err := write(ok); err != nil {
				t.Fatalf("write %d entries again: %v", ok, err)
			}
			stored := &v1alpha1.IPPool{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(pool), stored); err != nil {
				t.Fatal(err)
			}
			js, err := json.Marshal(stored)
			if err != nil {
				t.Fatal(err)
			}
			code := int32(0)
			if st, isStatus := lastErr.(apierrors.APIStatus); isStatus {
				code = st.Status().Code
			}
			t.Logf("%s: a status map of %d entries is written (the object is %d bytes of JSON as read back), %d is refused (%v of search): HTTP %d: %v",
				fam.name, ok, len(js), bad, time.Since(start).Round(time.Millisecond), code, lastErr)
		})
	}
}
