package readiness

import (
	"net/netip"

	"github.com/vmnetkit/vmnetkit/internal/macoracle"
)

// The models below restate the rules as plainly as possible, each a direct
// reading of the documentation of Strict, Counting, Match and IgnoreReason, and decide only Ready. The property
// test checks Evaluate against them.

// modelMAC is a MAC as the standard library reads it, for an oracle
// independent of internal/hwaddr.
func modelMAC(s string) (string, bool) {
	hw, err := macoracle.ParseMAC(s)
	if err != nil || len(hw) != 6 {
		return "", false
	}
	return hw.String(), true
}

func modelFamilyIs4(a netip.Addr) bool { return a.Unmap().Is4() }

// modelNotUnicast is IgnoreReason's table of addresses that
// are no host's own: an invalid, unspecified, loopback, link-local or
// multicast address, 255.255.255.255, or one in 0.0.0.0/8. The rest of
// 240.0.0.0/4 is usable (FIELD-CASES.md, case 1).
func modelNotUnicast(a netip.Addr) bool {
	if !a.IsValid() || a.IsUnspecified() || a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsMulticast() {
		return true
	}
	for _, p := range []string{"0.0.0.0/8", "255.255.255.255/32"} {
		if netip.MustParsePrefix(p).Contains(a) {
			return true
		}
	}
	return false
}

func modelValid(devs []Device) bool {
	macs := map[string]bool{}
	statics := map[netip.Addr]bool{}
	for _, d := range devs {
		if d.MAC != "" {
			m, ok := modelMAC(d.MAC)
			if !ok || macs[m] {
				return false
			}
			macs[m] = true
		}
		for _, a := range d.Static {
			bad := !a.IsValid() || a.Zone() != "" || a.Is4In6() || modelNotUnicast(a)
			if bad || statics[a] || a.Is4() && d.DHCP4 || a.Is6() && d.DHCP6 {
				return false
			}
			statics[a] = true
		}
	}
	return true
}

func modelStrictReady(in Input) bool {
	if !modelValid(in.Devices) {
		return false
	}
	plain := func(a netip.Addr) netip.Addr { return a.Unmap().WithZone("") }
	usable := func(a netip.Addr) bool {
		a = plain(a)
		if modelNotUnicast(a) {
			return false
		}
		for _, p := range in.Ignore {
			// An Ignore prefix in IPv4-mapped form is matched as the IPv4
			// prefix it maps, as addresses are.
			if m := p.Addr(); m.Is4In6() && p.Bits() >= 96 {
				p = netip.PrefixFrom(m.Unmap(), p.Bits()-96)
			}
			if p.Contains(a) {
				return false
			}
		}
		return true
	}
	isStatic := func(a netip.Addr) bool {
		for _, d := range in.Devices {
			for _, s := range d.Static {
				if s == plain(a) {
					return true
				}
			}
		}
		return false
	}
	byMAC := func(i, j int) bool {
		dm, dok := modelMAC(in.Devices[i].MAC)
		nm, nok := modelMAC(in.NICs[j].MAC)
		return dok && nok && dm == nm
	}
	belongs := func(i, j int) bool {
		if byMAC(i, j) {
			return true
		}
		if i != j {
			return false
		}
		for k := range in.NICs {
			if byMAC(i, k) {
				return false
			}
		}
		for d := range in.Devices {
			if byMAC(d, j) {
				return false
			}
		}
		return in.Devices[i].MAC == "" || in.NICs[j].MAC == ""
	}
	dhcp := func(i int, v4 bool) bool {
		if v4 {
			return in.Devices[i].DHCP4
		}
		return in.Devices[i].DHCP6
	}
	fromNIC := func(i int, v4 bool) bool {
		for j := range in.NICs {
			if !belongs(i, j) {
				continue
			}
			for _, a := range in.NICs[j].Addrs {
				if usable(a) && modelFamilyIs4(a) == v4 && !isStatic(a) {
					return true
				}
			}
		}
		return false
	}
	reported := func(a netip.Addr) bool {
		for _, n := range in.NICs {
			for _, b := range n.Addrs {
				if plain(a) == plain(b) {
					return true
				}
			}
		}
		return false
	}
	for _, v4 := range []bool{true, false} {
		var pending []int
		for i := range in.Devices {
			if dhcp(i, v4) && !fromNIC(i, v4) {
				pending = append(pending, i)
			}
		}
		if len(pending) > 1 {
			return false
		}
		if len(pending) == 1 {
			fromNode := false
			for _, a := range in.NodeAddrs {
				if usable(a) && modelFamilyIs4(a) == v4 && !reported(a) && !isStatic(a) {
					fromNode = true
				}
			}
			if !fromNode {
				return false
			}
		}
	}
	for _, n := range in.NICs {
		for _, a := range n.Addrs {
			if usable(a) {
				return true
			}
		}
	}
	for _, a := range in.NodeAddrs {
		if usable(a) {
			return true
		}
	}
	return false
}

// modelCountingReady is the legacy rule as it was written, over strings.
func modelCountingReady(in Input) bool {
	var list []string
	seen := map[string]bool{}
	add := func(a netip.Addr) {
		if a.IsValid() && !seen[a.String()] {
			seen[a.String()] = true
			list = append(list, a.String())
		}
	}
	for _, n := range in.NICs {
		for _, a := range n.Addrs {
			add(a)
		}
	}
	want, dhcp := 0, 0
	static := map[string]bool{}
	for _, d := range in.Devices {
		if d.DHCP4 || d.DHCP6 || len(d.Static) > 0 {
			want++
		}
		if d.DHCP4 || d.DHCP6 {
			dhcp++
		}
		for _, a := range d.Static {
			static[a.String()] = true
		}
	}
	if len(list) < want {
		for _, a := range in.NodeAddrs {
			if a.IsValid() {
				add(a)
				break
			}
		}
	}
	nonStatic := 0
	for _, s := range list {
		if !static[s] {
			nonStatic++
		}
	}
	if dhcp > 0 {
		return nonStatic >= dhcp
	}
	return len(list) > 0
}
