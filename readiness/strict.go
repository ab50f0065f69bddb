package readiness

import (
	"net/netip"
	"strconv"
)

// family indexes per-family state: 0 is IPv4, 1 is IPv6.
func family(a netip.Addr) int {
	if a.Is4() {
		return 0
	}
	return 1
}

var familyDHCP = [2]string{"dhcp4", "dhcp6"}

func (d Device) dhcp(fam int) bool {
	if fam == 0 {
		return d.DHCP4
	}
	return d.DHCP6
}

func (d Device) hasStatic(fam int) bool {
	for _, a := range d.Static {
		if family(a) == fam {
			return true
		}
	}
	return false
}

// evaluateStrict applies the Strict rules (see the package documentation).
func evaluateStrict(in Input) Verdict {
	macs, problems := validate(in.Devices)
	if len(problems) > 0 {
		return InvalidVerdict(problems)
	}
	owner := make(map[netip.Addr]int) // static address -> device
	for i, d := range in.Devices {
		for _, a := range d.Static {
			owner[a] = i
		}
	}
	matches, owned := matchNICs(in.Devices, in.NICs)

	// Any usable address anywhere is the sign of life rule 5 asks for.
	alive := false
	reported := make(map[netip.Addr]bool)
	for _, n := range in.NICs {
		for _, a := range n.Addrs {
			na := normalize(a)
			reported[na] = true
			if _, ok := classify(na, in.Ignore); ok {
				alive = true
			}
		}
	}

	v := Verdict{Devices: make([]DeviceVerdict, len(in.Devices))}
	got := make([][2]bool, len(in.Devices))
	for i, d := range in.Devices {
		dv := DeviceVerdict{Index: i, MAC: macs[i], Match: matches[i].how}
		var usable, own [2]bool
		// Repeats are dropped when the lists are sorted (finish), so that
		// the NIC order never shows.
		for _, j := range matches[i].nics {
			for _, a := range in.NICs[j].Addrs {
				na := normalize(a)
				why, ok := classify(na, in.Ignore)
				if !ok {
					dv.Ignored = append(dv.Ignored, IgnoredAddr{a, Hypervisor, why})
					continue
				}
				fam := family(na)
				usable[fam] = true
				o, isStatic := owner[na]
				switch {
				case isStatic && o == i:
					own[fam] = true
					dv.Credited = append(dv.Credited, CreditedAddr{na, Hypervisor})
				case isStatic:
					dv.Ignored = append(dv.Ignored, IgnoredAddr{a, Hypervisor, IgnoredStaticOfOther})
				case d.dhcp(fam):
					got[i][fam] = true
					dv.Credited = append(dv.Credited, CreditedAddr{na, Hypervisor})
				case d.hasStatic(fam):
					dv.Ignored = append(dv.Ignored, IgnoredAddr{a, Hypervisor, IgnoredNotOwnStatic})
				default:
					dv.Ignored = append(dv.Ignored, IgnoredAddr{a, Hypervisor, IgnoredFamilyNotWanted})
				}
			}
		}
		for fam := range 2 {
			if d.hasStatic(fam) && !d.dhcp(fam) && usable[fam] && !own[fam] {
				dv.State = Mismatch
			}
		}
		v.Devices[i] = dv
	}

	// Addresses of NICs that belong to no device are never credited.
	for j, n := range in.NICs {
		if owned[j] {
			continue
		}
		for _, a := range n.Addrs {
			why, ok := classify(normalize(a), in.Ignore)
			if ok {
				why = IgnoredUnmatchedNIC
			}
			v.Ignored = append(v.Ignored, IgnoredAddr{a, Hypervisor, why})
		}
	}

	// Node addresses: a static address is its device's; one no NIC reports
	// goes to the single DHCP device of its family still pending, if there
	// is exactly one (decided before any Node address is credited, so that
	// the order of NodeAddrs does not matter).
	var pending [2][]int
	for i, d := range in.Devices {
		for fam := range 2 {
			if d.dhcp(fam) && !got[i][fam] {
				pending[fam] = append(pending[fam], i)
			}
		}
	}
	var nodeCredited addrList
	var ambiguous []string
	seenNode := make(map[netip.Addr]bool)
	for _, a := range in.NodeAddrs {
		na := normalize(a)
		if seenNode[na] {
			continue
		}
		seenNode[na] = true
		why, ok := classify(na, in.Ignore)
		if !ok {
			v.Ignored = append(v.Ignored, IgnoredAddr{a, Node, why})
			continue
		}
		alive = true
		if reported[na] {
			continue // the NIC that reports it decided
		}
		if o, isStatic := owner[na]; isStatic {
			v.Devices[o].Credited = append(v.Devices[o].Credited, CreditedAddr{na, Node})
			nodeCredited.add(na)
			continue
		}
		fam := family(na)
		switch cands := pending[fam]; len(cands) {
		case 0:
			nodeCredited.add(na) // the machine's, no device waits for it
		case 1:
			i := cands[0]
			got[i][fam] = true
			v.Devices[i].Credited = append(v.Devices[i].Credited, CreditedAddr{na, Node})
			nodeCredited.add(na)
		default:
			v.Ignored = append(v.Ignored, IgnoredAddr{a, Node, IgnoredAmbiguous})
			ambiguous = append(ambiguous, "node address "+na.String()+" is ambiguous: "+
				strconv.Itoa(len(cands))+" devices wait for "+familyDHCP[fam])
		}
	}

	var items []string
	allSatisfied := true
	for i, d := range in.Devices {
		dv := &v.Devices[i]
		dv.WaitingDHCP4 = d.DHCP4 && !got[i][0]
		dv.WaitingDHCP6 = d.DHCP6 && !got[i][1]
		switch {
		case dv.WaitingDHCP4 || dv.WaitingDHCP6:
			dv.State = Pending
			allSatisfied = false
			items = append(items, waitingItem(*dv))
		case !d.wantsAddress():
			dv.State = NotRequired
		case dv.State != Mismatch:
			dv.State = Satisfied
		}
	}
	items = append(items, ambiguous...)
	if allSatisfied && !alive {
		items = append(items, "waiting for a first usable address from the hypervisor or the node")
	}
	v.Ready = allSatisfied && alive

	v.finish(items) // sorts each device's Credited, read in order below
	var addrs addrList
	for _, dv := range v.Devices {
		for _, c := range dv.Credited {
			if c.Source == Hypervisor {
				addrs.add(c.Addr)
			}
		}
	}
	for _, a := range nodeCredited.addrs {
		addrs.add(a)
	}
	v.Addresses = addrs.addrs
	return v
}
