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

// evaluateStrict applies the Strict rules (see Strict's documentation)
// in the order they decide: the devices' own NICs first, then the NICs of
// no device, then the Node addresses no NIC reports, then each device's
// state and the verdict.
func evaluateStrict(in Input) Verdict {
	macs, problems := validate(in.Devices)
	if len(problems) > 0 {
		return InvalidVerdict(problems)
	}
	// Made here, not by a constructor, so that it stays off the heap.
	e := strictEval{
		owner:    make(map[netip.Addr]int),
		reported: make(map[netip.Addr]bool),
		got:      make([][2]bool, len(in.Devices)),
	}
	e.observe(in)
	v := Verdict{Devices: make([]DeviceVerdict, len(in.Devices))}
	for i := range in.Devices {
		v.Devices[i] = e.creditNICs(in, i, macs[i])
	}
	v.Ignored = ignoreUnmatchedNICs(in, e.owned)
	nodeCredited, ambiguous := e.creditNodeAddrs(in, &v)
	var items []string
	ready := true
	for i := range in.Devices {
		if e.settle(in, i, &v.Devices[i]) == Pending {
			ready = false
			items = append(items, waitingItem(v.Devices[i]))
		}
	}
	items = append(items, ambiguous...)
	if ready && !e.alive {
		items = append(items, "waiting for a first usable address from the hypervisor or the node")
	}
	v.Ready = ready && e.alive
	v.finish(items) // sorts each device's Credited, read in order below
	v.Addresses = creditedAddrs(v.Devices, nodeCredited)
	return v
}

// strictEval is what the Strict rules know of an Input as they go.
type strictEval struct {
	owner    map[netip.Addr]int  // a static address -> its device
	reported map[netip.Addr]bool // every address a NIC reports
	matches  []nicMatch          // each device's NICs
	owned    []bool              // NIC j belongs to a device
	alive    bool                // a usable address anywhere: the sign of life rule 5 asks for
	got      [][2]bool           // device i has a DHCP address of family fam
}

// observe notes who owns each static address, which NICs are whose, what
// the NICs report, and whether any of it is usable.
func (e *strictEval) observe(in Input) {
	for i, d := range in.Devices {
		for _, a := range d.Static {
			e.owner[a] = i
		}
	}
	e.matches, e.owned = matchNICs(in.Devices, in.NICs)
	for _, n := range in.NICs {
		for _, a := range n.Addrs {
			na := normalize(a)
			e.reported[na] = true
			if _, ok := classify(na, in.Ignore); ok {
				e.alive = true
			}
		}
	}
}

// creditNICs returns the verdict of device i from the addresses of its
// own NICs: a usable address is credited when it is the device's static
// address, or of a family the device asks DHCP for and nobody's static
// address; else it is ignored. A device with a static address of a family
// and no DHCP for it, whose NICs report usable addresses of that family
// but not its own, is a Mismatch. Repeats are dropped when the lists are sorted
// (finish), so that the NIC order never shows.
func (e *strictEval) creditNICs(in Input, i int, mac string) DeviceVerdict {
	d := in.Devices[i]
	dv := DeviceVerdict{Index: i, MAC: mac, Match: e.matches[i].how}
	var usable, own [2]bool
	for _, j := range e.matches[i].nics {
		for _, a := range in.NICs[j].Addrs {
			na := normalize(a)
			why, ok := classify(na, in.Ignore)
			if !ok {
				dv.Ignored = append(dv.Ignored, IgnoredAddr{a, Hypervisor, why})
				continue
			}
			fam := family(na)
			usable[fam] = true
			o, isStatic := e.owner[na]
			switch {
			case isStatic && o == i:
				own[fam] = true
				dv.Credited = append(dv.Credited, CreditedAddr{na, Hypervisor})
			case isStatic:
				dv.Ignored = append(dv.Ignored, IgnoredAddr{a, Hypervisor, IgnoredStaticOfOther})
			case d.dhcp(fam):
				e.got[i][fam] = true
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
	return dv
}

// ignoreUnmatchedNICs returns the addresses of the NICs that belong to no
// device: they are never credited.
func ignoreUnmatchedNICs(in Input, owned []bool) []IgnoredAddr {
	var ignored []IgnoredAddr
	for j, n := range in.NICs {
		if owned[j] {
			continue
		}
		for _, a := range n.Addrs {
			why, ok := classify(normalize(a), in.Ignore)
			if ok {
				why = IgnoredUnmatchedNIC
			}
			ignored = append(ignored, IgnoredAddr{a, Hypervisor, why})
		}
	}
	return ignored
}

// pendingDHCP returns, for each family, the devices that ask DHCP for it
// and have no address of it yet.
func (e *strictEval) pendingDHCP(in Input) (pending [2][]int) {
	for i, d := range in.Devices {
		for fam := range 2 {
			if d.dhcp(fam) && !e.got[i][fam] {
				pending[fam] = append(pending[fam], i)
			}
		}
	}
	return pending
}

// creditNodeAddrs credits the usable Node addresses that no NIC reports
// (one a NIC reports was decided by that NIC): a static address to its
// device; another to the single DHCP device of its family still pending,
// if there is exactly one (decided before any Node address is credited,
// so that the order of NodeAddrs does not matter), or to the machine when
// none is pending. It returns the Node addresses credited, and a message
// for each address that more than one device waits for.
func (e *strictEval) creditNodeAddrs(in Input, v *Verdict) (credited addrList, ambiguous []string) {
	pending := e.pendingDHCP(in)
	seen := make(map[netip.Addr]bool)
	for _, a := range in.NodeAddrs {
		na := normalize(a)
		if seen[na] {
			continue
		}
		seen[na] = true
		why, ok := classify(na, in.Ignore)
		if !ok {
			v.Ignored = append(v.Ignored, IgnoredAddr{a, Node, why})
			continue
		}
		e.alive = true
		if e.reported[na] {
			continue // the NIC that reports it decided
		}
		if o, isStatic := e.owner[na]; isStatic {
			v.Devices[o].Credited = append(v.Devices[o].Credited, CreditedAddr{na, Node})
			credited.add(na)
			continue
		}
		fam := family(na)
		switch cands := pending[fam]; len(cands) {
		case 0:
			credited.add(na) // the machine's, no device waits for it
		case 1:
			i := cands[0]
			e.got[i][fam] = true
			v.Devices[i].Credited = append(v.Devices[i].Credited, CreditedAddr{na, Node})
			credited.add(na)
		default:
			v.Ignored = append(v.Ignored, IgnoredAddr{a, Node, IgnoredAmbiguous})
			ambiguous = append(ambiguous, "node address "+na.String()+" is ambiguous: "+
				strconv.Itoa(len(cands))+" devices wait for "+familyDHCP[fam])
		}
	}
	return credited, ambiguous
}

// settle sets the state of device i, whose verdict is dv, now that every
// address is credited, and returns it: Pending while it waits for a DHCP
// address, NotRequired when it wants no address, else Satisfied unless
// creditNICs found a Mismatch.
func (e *strictEval) settle(in Input, i int, dv *DeviceVerdict) State {
	d := in.Devices[i]
	dv.WaitingDHCP4 = d.DHCP4 && !e.got[i][0]
	dv.WaitingDHCP6 = d.DHCP6 && !e.got[i][1]
	switch {
	case dv.WaitingDHCP4 || dv.WaitingDHCP6:
		dv.State = Pending
	case !d.wantsAddress():
		dv.State = NotRequired
	case dv.State != Mismatch:
		dv.State = Satisfied
	}
	return dv.State
}

// creditedAddrs returns the addresses of the verdict: the credited
// addresses the hypervisor reports, device by device in the sorted order
// of their Credited lists, then the Node addresses credited, without
// repeats.
func creditedAddrs(devices []DeviceVerdict, nodeCredited addrList) []netip.Addr {
	var addrs addrList
	for _, dv := range devices {
		for _, c := range dv.Credited {
			if c.Source == Hypervisor {
				addrs.add(c.Addr)
			}
		}
	}
	for _, a := range nodeCredited.addrs {
		addrs.add(a)
	}
	return addrs.addrs
}
