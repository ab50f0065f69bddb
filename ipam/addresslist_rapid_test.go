package ipam

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vmnetkit/vmnetkit/internal/u128"
	"go4.org/netipx"
	"pgregory.net/rapid"
)

// addressListWindows are the subnets TestAddressListModel draws from, each
// with the windows of addresses (offsets from the subnet's first address,
// inclusive) its lists stay in, so that a plain loop can visit every
// address the list names.
var addressListWindows = []struct {
	subnet  string
	windows [][2]uint64
}{
	{"10.0.0.0/24", [][2]uint64{{0, 255}}},
	{"10.0.0.0/30", [][2]uint64{{0, 3}}},
	{"10.0.0.4/31", [][2]uint64{{0, 1}}},
	{"10.0.0.9/32", [][2]uint64{{0, 0}}},
	{"10.1.0.0/16", [][2]uint64{{0, 80}, {65530, 65535}}},
	{"fd00::/120", [][2]uint64{{0, 255}}},
	{"fd00::4/127", [][2]uint64{{0, 1}}},
	{"fd00::5/128", [][2]uint64{{0, 0}}},
	{"fd00:1::/64", [][2]uint64{{0, 80}, {1<<64 - 6, 1<<64 - 1}}},
}

// TestAddressListModel: the pool of AddressList.Parse's Spec hands out
// exactly what a plain reading of the list allows, in address order.
func TestAddressListModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := rapid.SampledFrom(addressListWindows).Draw(t, "subnet")
		subnet := netip.MustParsePrefix(w.subnet)
		at := func(o uint64) netip.Addr { return addrAt(subnet, u128.From64(o)) }
		genRange := func(label string) (netipx.IPRange, string) {
			win := rapid.SampledFrom(w.windows).Draw(t, label+"-window")
			a := rapid.Uint64Range(win[0], win[1]).Draw(t, label+"-from")
			b := a + min(win[1]-a, rapid.Uint64Range(0, 40).Draw(t, label+"-len"))
			r := netipx.IPRangeFrom(at(a), at(b))
			switch {
			case a == b:
				return r, r.From().String()
			case rapid.Bool().Draw(t, label+"-as-prefix"):
				if p, ok := r.Prefix(); ok {
					return r, p.String()
				}
			}
			return r, r.From().String() + "-" + r.To().String()
		}
		var list AddressList
		list.Prefix = subnet.Bits()
		list.AllocateReservedIPAddresses = rapid.Bool().Draw(t, "allocate-reserved")
		var listed, excluded []netipx.IPRange
		for i := range rapid.IntRange(1, 4).Draw(t, "addresses") {
			r, s := genRange(fmt.Sprintf("addr%d", i))
			listed = append(listed, r)
			list.Addresses = append(list.Addresses, s)
		}
		for i := range rapid.IntRange(0, 2).Draw(t, "excluded") {
			r, s := genRange(fmt.Sprintf("excl%d", i))
			excluded = append(excluded, r)
			list.ExcludedAddresses = append(list.ExcludedAddresses, s)
		}
		var gateway netip.Addr
		switch rapid.IntRange(0, 2).Draw(t, "gateway") {
		case 1:
			win := rapid.SampledFrom(w.windows).Draw(t, "gw-window")
			gateway = at(rapid.Uint64Range(win[0], win[1]).Draw(t, "gw"))
			list.Gateway = gateway.String()
		case 2:
			list.Gateway = map[bool]string{true: "192.0.2.1", false: "2001:db8::1"}[subnet.Addr().Is4()]
		}
		// The list's subnet is that of its lowest address.
		lowest := slices.MinFunc(listed, func(a, b netipx.IPRange) int { return a.From().Compare(b.From()) }).From()
		subnet = netip.PrefixFrom(lowest, list.Prefix).Masked()
		host := subnet.Addr().BitLen() - subnet.Bits()

		allowed := func(a netip.Addr) bool {
			in := func(rs []netipx.IPRange) bool {
				return slices.ContainsFunc(rs, func(r netipx.IPRange) bool { return r.Contains(a) })
			}
			end := a == subnet.Addr() || (a.Is4() && a == netipx.PrefixLastIP(subnet))
			return in(listed) && !in(excluded) && a != gateway && !(end && host >= 2 && !list.AllocateReservedIPAddresses)
		}
		var want []netip.Addr
		for _, win := range w.windows {
			for o := win[0]; ; o++ {
				if a := at(o); allowed(a) {
					want = append(want, a)
				}
				if o == win[1] {
					break
				}
			}
		}

		spec, err := list.Parse()
		if err != nil {
			t.Fatalf("Parse(%+v) error: %v", list, err)
		}
		p, err := New(spec)
		if err != nil {
			t.Fatalf("New(%+v) error: %v", spec, err)
		}
		if got, _ := p.Stats().Free.Uint64(); got != uint64(len(want)) {
			t.Fatalf("Stats().Free = %d, want %d; spec %+v", got, len(want), spec)
		}
		for _, win := range w.windows {
			for o := win[0]; ; o++ {
				a := at(o)
				if err := p.Check(a); (err == nil) != allowed(a) {
					t.Fatalf("Check(%s) = %v, want allowed %v; spec %+v", a, err, allowed(a), spec)
				}
				if o == win[1] {
					break
				}
			}
		}
		var got []netip.Addr
		for i := range want {
			a, err := p.Allocate(fmt.Sprint("claim-", i))
			if err != nil {
				t.Fatalf("Allocate #%d error: %v", i, err)
			}
			got = append(got, a)
		}
		if diff := cmp.Diff(want, got, cmpAddrs); diff != "" {
			t.Fatalf("addresses handed out (-want +got):\n%s", diff)
		}
		if a, err := p.Allocate("one-more"); err == nil {
			t.Fatalf("Allocate after %d = %s, want ErrExhausted", len(want), a)
		}
	})
}
