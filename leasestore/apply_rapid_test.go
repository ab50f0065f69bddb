package leasestore_test

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// TestApplyUnmaskedPrefixKeepsEachLeaseOnce is the plan of issue 26: with
// the prefix 10.0.0.5/24, Apply put two MACs on 10.0.0.5 and Lookup of the
// first MAC returned 10.0.0.5 (its check masked the prefix, its packing
// counted from the unmasked address).
func TestApplyUnmaskedPrefixKeepsEachLeaseOnce(t *testing.T) {
	prefix := netip.MustParsePrefix("10.0.0.5/24")
	lease := func(mac, addr string) leasestore.Lease {
		return leasestore.Lease{MAC: leasestore.MustParseMAC(mac), Addr: netip.MustParseAddr(addr), Prefix: prefix, Options: &opts4}
	}
	p := leasestore.Plan{Add: []leasestore.Lease{
		lease("52:54:00:00:00:01", "10.0.0.1"),
		lease("52:54:00:00:00:02", "10.0.0.9"),
		lease("52:54:00:00:00:03", "10.0.0.5"),
	}}
	st := p.Apply(nil)
	want := []string{"52:54:00:00:00:01 10.0.0.1/24", "52:54:00:00:00:03 10.0.0.5/24", "52:54:00:00:00:02 10.0.0.9/24"}
	if diff := gocmp.Diff(want, table(st)); diff != "" {
		t.Errorf("Apply (-want +got):\n%s", diff)
	}
	for _, l := range p.Add {
		got, ok := st.Lookup(l.MAC)
		if !ok || got.Addr != l.Addr || got.Prefix != netip.MustParsePrefix("10.0.0.0/24") {
			t.Errorf("Lookup(%v) = %v, %v; want %v in 10.0.0.0/24", l.MAC, got, ok, l.Addr)
		}
		if got, ok := st.LookupAddr(l.Addr); !ok || got.MAC != l.MAC {
			t.Errorf("LookupAddr(%v) = %v, %v; want %v", l.Addr, got, ok, l.MAC)
		}
	}
}

// TestApplyNeverCorruptsTable: whatever plan Apply is given (leases of
// any MAC and address, in or out of the prefix, of either family, an
// unmasked prefix, MACs and addresses given twice, removals of what old
// does not hold), its table holds each MAC and each address once, Lookup
// and LookupAddr find each of its leases, and it serves exactly what the
// plan gives by the rule of Build (the model below).
func TestApplyNeverCorruptsTable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		defer leasestore.SetPackBits(rapid.SampledFrom([]uint{64, 28, 0}).Draw(t, "pack bits"))()
		macs := []string{"52:54:00:00:00:00", "52:54:00:00:00:01", "52:54:00:00:00:02", "52:54:00:00:00:03", "52:54:01:00:00:04", "02:00:00:00:00:05"}
		genMAC := func(label string) leasestore.MAC {
			return leasestore.MustParseMAC(rapid.SampledFrom(macs).Draw(t, label))
		}
		genAddr := func(label string) netip.Addr {
			if rapid.IntRange(0, 9).Draw(t, label+" v6") == 0 {
				return netip.AddrFrom16([16]byte{0: 0xfd, 15: byte(rapid.IntRange(0, 255).Draw(t, label))})
			}
			return netip.AddrFrom4([4]byte{10, 0, byte(rapid.IntRange(0, 1).Draw(t, label+" hi")), byte(rapid.IntRange(0, 255).Draw(t, label))})
		}
		genPrefix := func(label string) netip.Prefix {
			// Host bits set more often than not.
			if rapid.IntRange(0, 9).Draw(t, label+" v6") == 0 {
				return netip.PrefixFrom(genAddr(label+" addr"), rapid.IntRange(100, 128).Draw(t, label+" bits"))
			}
			a := netip.AddrFrom4([4]byte{10, 0, byte(rapid.IntRange(0, 1).Draw(t, label+" hi")), byte(rapid.IntRange(0, 255).Draw(t, label+" addr"))})
			return netip.PrefixFrom(a, rapid.IntRange(22, 32).Draw(t, label+" bits"))
		}
		genOpts := rapid.SampledFrom([]*leasestore.Options{nil, &opts4, {LeaseTime: 7}})

		var old *leasestore.Store
		if rapid.Bool().Draw(t, "old") {
			s := ipam.Snapshot{Spec: ipam.Spec{Prefix: netip.MustParsePrefix("10.0.0.0/24")}}
			for i := range rapid.IntRange(0, 8).Draw(t, "old leases") {
				s.Allocations = append(s.Allocations, ipam.Allocation{
					Addr:  netip.AddrFrom4([4]byte{10, 0, 0, byte(rapid.IntRange(1, 254).Draw(t, fmt.Sprint("old addr ", i)))}),
					Owner: genMAC("old mac").String(),
				})
			}
			old, _ = leasestore.Build(s, opts4)
		}
		prefix := genPrefix("prefix")
		genLease := func(label string) leasestore.Lease {
			p := prefix
			if rapid.IntRange(0, 4).Draw(t, label+" other prefix") == 0 {
				p = genPrefix(label + " prefix")
			}
			return leasestore.Lease{MAC: genMAC(label + " mac"), Addr: genAddr(label + " addr"), Prefix: p, Options: genOpts.Draw(t, label+" options")}
		}
		var p leasestore.Plan
		for range rapid.IntRange(0, 6).Draw(t, "adds") {
			p.Add = append(p.Add, genLease("add"))
		}
		for range rapid.IntRange(0, 3).Draw(t, "removes") {
			p.Remove = append(p.Remove, genLease("remove"))
		}
		for range rapid.IntRange(0, 3).Draw(t, "updates") {
			p.Update = append(p.Update, leasestore.Change{Old: genLease("update old"), New: genLease("update new")})
		}

		got := p.Apply(old)
		want, wantPrefix := applyModel(p, old)

		var pairs []pair
		macSeen, addrSeen := map[leasestore.MAC]bool{}, map[netip.Addr]bool{}
		for l := range got.All() {
			if macSeen[l.MAC] || addrSeen[l.Addr] {
				t.Fatalf("MAC or address twice in the table %v", table(got))
			}
			macSeen[l.MAC], addrSeen[l.Addr] = true, true
			if l.Prefix != wantPrefix {
				t.Fatalf("lease %v has prefix %v; want %v", l, l.Prefix, wantPrefix)
			}
			if byMAC, ok := got.Lookup(l.MAC); !ok || byMAC.Addr != l.Addr || byMAC.Prefix != l.Prefix {
				t.Fatalf("Lookup(%v) = %v, %v; the table serves %v", l.MAC, byMAC, ok, l)
			}
			if byAddr, ok := got.LookupAddr(l.Addr); !ok || byAddr.MAC != l.MAC || byAddr.Prefix != l.Prefix {
				t.Fatalf("LookupAddr(%v) = %v, %v; the table serves %v", l.Addr, byAddr, ok, l)
			}
			pairs = append(pairs, pair{l.MAC, l.Addr})
		}
		slices.SortFunc(pairs, pair.compare)
		if diff := gocmp.Diff(want, pairs, cmpOpts, gocmp.AllowUnexported(pair{})); diff != "" {
			t.Fatalf("Apply serves (-want +got):\n%s", diff)
		}
		if got.Len() != len(want) {
			t.Fatalf("Len = %d; want %d", got.Len(), len(want))
		}
		// What the table does not serve, its lookups do not find.
		for _, m := range macs {
			mac := leasestore.MustParseMAC(m)
			if l, ok := got.Lookup(mac); ok != macSeen[mac] {
				t.Fatalf("Lookup(%v) = %v, %v; the table serves it: %v", mac, l, ok, macSeen[mac])
			}
		}
		for _, l := range append(slices.Clone(p.Add), p.Remove...) {
			if got, ok := got.LookupAddr(l.Addr); ok != addrSeen[l.Addr] {
				t.Fatalf("LookupAddr(%v) = %v, %v; the table serves it: %v", l.Addr, got, ok, addrSeen[l.Addr])
			}
		}
	})
}

// pair is a served lease, MAC and address.
type pair struct {
	mac  leasestore.MAC
	addr netip.Addr
}

func (p pair) compare(q pair) int {
	if c := p.addr.Compare(q.addr); c != 0 {
		return c
	}
	return p.mac.Compare(q.mac)
}

// applyModel is Apply written plainly: the prefix (masked) of the first
// Update or Add, or old's; old's leases but the MACs the plan removes or
// updates, with the updates' new leases and the additions, those in the
// prefix only; then in (address, MAC) order, a MAC keeps its first address
// and an address its first MAC.
func applyModel(p leasestore.Plan, old *leasestore.Store) ([]pair, netip.Prefix) {
	var prefix netip.Prefix
	for l := range old.All() {
		prefix = l.Prefix
		break
	}
	switch {
	case len(p.Update) > 0:
		prefix = p.Update[0].New.Prefix
	case len(p.Add) > 0:
		prefix = p.Add[0].Prefix
	}
	prefix = prefix.Masked()
	gone := map[leasestore.MAC]bool{}
	for _, l := range p.Remove {
		gone[l.MAC] = true
	}
	for _, c := range p.Update {
		gone[c.Old.MAC], gone[c.New.MAC] = true, true
	}
	var cands []pair
	for l := range old.All() {
		if !gone[l.MAC] {
			cands = append(cands, pair{l.MAC, l.Addr})
		}
	}
	for _, c := range p.Update {
		cands = append(cands, pair{c.New.MAC, c.New.Addr})
	}
	for _, l := range p.Add {
		cands = append(cands, pair{l.MAC, l.Addr})
	}
	slices.SortFunc(cands, pair.compare)
	var out []pair
	macTaken, addrTaken := map[leasestore.MAC]bool{}, map[netip.Addr]bool{}
	for _, c := range cands {
		if !prefix.Contains(c.addr) || macTaken[c.mac] || addrTaken[c.addr] {
			continue
		}
		macTaken[c.mac], addrTaken[c.addr] = true, true
		out = append(out, c)
	}
	slices.SortFunc(out, pair.compare)
	return out, prefix
}
