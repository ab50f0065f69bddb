package controller

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// poolSetModel is the obvious model of a dual-stack poolSet under the
// Lowest strategy: each family's owners in a map, its range as a list.
type poolSetModel struct {
	range4, range6 []netip.Addr
	own4, own6     map[string]netip.Addr // MAC -> address
	most           int                   // the limit of each family
}

// lowestFree returns the lowest address of rng no one in own holds.
func lowestFree(rng []netip.Addr, own map[string]netip.Addr) (netip.Addr, bool) {
	used := map[netip.Addr]bool{}
	for _, a := range own {
		used[a] = true
	}
	for _, a := range rng {
		if !used[a] {
			return a, true
		}
	}
	return netip.Addr{}, false
}

// outcome kinds, compared between the model and the poolSet.
const (
	kindOK        = "ok"
	kindExhausted = "exhausted"
	kindLimited   = "limited"
)

func kindOf(err error) string {
	switch {
	case err == nil:
		return kindOK
	case ipam.IsExhausted(err):
		return kindExhausted
	case errors.Is(err, errCapacityLimited):
		return kindLimited
	}
	return "other: " + err.Error()
}

// allocate is allocateNIC's rule, written plainly: IPv4 first; IPv6 only
// once IPv4 is held; what a MAC holds it keeps.
func (m *poolSetModel) allocate(mac string) (a4, a6 netip.Addr, kind4, kind6 string) {
	take := func(rng []netip.Addr, own map[string]netip.Addr) (netip.Addr, string) {
		if a, ok := own[mac]; ok {
			return a, kindOK
		}
		if len(own) >= m.most {
			return netip.Addr{}, kindLimited
		}
		a, ok := lowestFree(rng, own)
		if !ok {
			return netip.Addr{}, kindExhausted
		}
		own[mac] = a
		return a, kindOK
	}
	a4, kind4 = take(m.range4, m.own4)
	if kind4 != kindOK {
		return a4, netip.Addr{}, kind4, ""
	}
	a6, kind6 = take(m.range6, m.own6)
	return a4, a6, kind4, kind6
}

func addrRange(from string, n int) []netip.Addr {
	a := netip.MustParseAddr(from)
	var out []netip.Addr
	for range n {
		out = append(out, a)
		a = a.Next()
	}
	return out
}

// TestPoolSetRapid runs a dual-stack poolSet (an IPv4 range of 8, an IPv6
// range of 3 or more, so both exhaustion and the limit happen) against
// poolSetModel: allocate, release, and a restart (the status written,
// then rebuilt), checking after each step that both families hold what the
// model holds, no address twice, and no MAC an IPv6 address without an
// IPv4 one.
func TestPoolSetRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n6 := rapid.IntRange(3, 10).Draw(t, "n6")
		most := rapid.IntRange(2, 12).Draw(t, "most")
		obj := &v1alpha1.IPPool{Spec: v1alpha1.IPPoolSpec{
			CIDR: "10.0.0.0/24", RangeStart: "10.0.0.10", RangeEnd: "10.0.0.17",
			IPv6: &v1alpha1.IPPoolIPv6Spec{CIDR: "fd00::/64", RangeStart: "fd00::10",
				RangeEnd: addrRange("fd00::10", n6)[n6-1].String()},
		}}
		s, problems, err := buildPoolSet(obj)
		if err != nil || len(problems) > 0 {
			t.Fatalf("buildPoolSet() = %v, %v", problems, err)
		}
		m := &poolSetModel{range4: addrRange("10.0.0.10", 8), range6: addrRange("fd00::10", n6),
			own4: map[string]netip.Addr{}, own6: map[string]netip.Addr{}, most: most}
		key := types.NamespacedName{Namespace: "ns", Name: "dual"}
		macs := make([]string, 16)
		for i := range macs {
			macs[i] = fmt.Sprintf("52:54:00:00:00:%02x", i)
		}
		t.Repeat(map[string]func(*rapid.T){
			"allocate": func(t *rapid.T) {
				mac := rapid.SampledFrom(macs).Draw(t, "mac")
				next := s.Clone()
				res, changed, err := allocateNIC(next, key, mac, netip.Addr{}, most)
				w4, w6, k4, k6 := m.allocate(mac)
				got6 := ""
				if err == nil {
					got6 = kindOf(res.err6)
				}
				if kindOf(err) != k4 || got6 != k6 || res.addr != w4 || res.addr6 != w6 {
					t.Fatalf("allocate %s = %v/%v (%s, %s), model %v/%v (%s, %s); err %v, err6 %v",
						mac, res.addr, res.addr6, kindOf(err), got6, w4, w6, k4, k6, err, res.err6)
				}
				if changed {
					s = next
				}
			},
			"release": func(t *rapid.T) {
				mac := rapid.SampledFrom(macs).Draw(t, "mac")
				_, had4 := m.own4[mac]
				_, had6 := m.own6[mac]
				if got := releaseNIC(s, mac); got != (had4 || had6) {
					t.Fatalf("releaseNIC(%s) = %v, want %v", mac, got, had4 || had6)
				}
				delete(m.own4, mac)
				delete(m.own6, mac)
			},
			"restart": func(t *rapid.T) {
				writeSetStats(&obj.Status, s)
				back, problems, err := buildPoolSet(obj)
				if err != nil || len(problems) > 0 {
					t.Fatalf("rebuild = %v, %v", problems, err)
				}
				s = back
			},
			"": func(t *rapid.T) {
				for _, f := range []struct {
					name string
					p    *ipam.Pool
					own  map[string]netip.Addr
				}{{"IPv4", s.cidr, m.own4}, {"IPv6", s.ipv6, m.own6}} {
					got := map[string]netip.Addr{}
					for a, owner := range f.p.All() {
						if _, dup := got[owner]; dup {
							t.Fatalf("%s: %s holds two addresses", f.name, owner)
						}
						got[owner] = a
					}
					if fmt.Sprint(got) != fmt.Sprint(f.own) {
						t.Fatalf("%s owners %v, model %v", f.name, got, f.own)
					}
				}
				for mac := range m.own6 {
					if _, ok := m.own4[mac]; !ok {
						t.Fatalf("%s holds an IPv6 address and no IPv4 one", mac)
					}
				}
			},
		})
	})
}
