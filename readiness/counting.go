package readiness

import (
	"net/netip"
	"strconv"

	"github.com/vmnetkit/vmnetkit/internal/hwaddr"
)

// evaluateCounting applies the legacy counting rule exactly as deployed:
//
//  1. collect the distinct valid addresses of every reported NIC, in NIC
//     order (matched to a device or not, usable or not);
//  2. if there are fewer than the devices that want an address (DHCP or
//     static), add the Node's internal address: the first valid NodeAddrs
//     entry;
//  3. with DHCP devices, ready when the collected addresses that are no
//     device's static address are at least as many as the DHCP devices;
//     without, ready when at least one address was collected.
//
// The spec is not validated (the legacy rule did not look at MACs), Ignore is
// not used, and addresses are compared as given (no unmapping, zones kept).
// The device verdicts only explain: a DHCP device is Pending exactly when
// the verdict is not ready.
func evaluateCounting(in Input) Verdict {
	var counted addrList
	for _, n := range in.NICs {
		for _, a := range n.Addrs {
			if a.IsValid() {
				counted.add(a)
			}
		}
	}
	want, dhcp := 0, 0
	static := make(map[netip.Addr]bool)
	for _, d := range in.Devices {
		if d.wantsAddress() {
			want++
		}
		if d.wantsDHCP() {
			dhcp++
		}
		for _, a := range d.Static {
			static[a] = true
		}
	}
	if len(counted.addrs) < want {
		for _, a := range in.NodeAddrs {
			if a.IsValid() {
				counted.add(a)
				break
			}
		}
	}
	nonStatic := 0
	for _, a := range counted.addrs {
		if !static[a] {
			nonStatic++
		}
	}
	v := Verdict{Addresses: counted.addrs}
	if dhcp > 0 {
		v.Ready = nonStatic >= dhcp
	} else {
		v.Ready = len(counted.addrs) >= 1
	}

	matches, owned := matchNICs(in.Devices, in.NICs)
	v.Devices = make([]DeviceVerdict, len(in.Devices))
	var items []string
	for i, d := range in.Devices {
		dv := DeviceVerdict{Index: i, MAC: d.MAC, Match: matches[i].how}
		if m, ok := hwaddr.Canonical(d.MAC); ok {
			dv.MAC = m
		}
		for _, j := range matches[i].nics {
			for _, a := range in.NICs[j].Addrs {
				if a.IsValid() {
					dv.Credited = append(dv.Credited, CreditedAddr{a, Hypervisor})
				} else {
					dv.Ignored = append(dv.Ignored, IgnoredAddr{a, Hypervisor, IgnoredInvalid})
				}
			}
		}
		switch {
		case !d.wantsAddress():
			dv.State = NotRequired
		case !d.wantsDHCP() || v.Ready:
			dv.State = Satisfied
		default:
			dv.State = Pending
			dv.WaitingDHCP4, dv.WaitingDHCP6 = d.DHCP4, d.DHCP6
			items = append(items, waitingItem(dv))
		}
		v.Devices[i] = dv
	}
	for j, n := range in.NICs {
		if owned[j] {
			continue
		}
		for _, a := range n.Addrs {
			if !a.IsValid() {
				v.Ignored = append(v.Ignored, IgnoredAddr{a, Hypervisor, IgnoredInvalid})
			}
		}
	}
	if dhcp > 0 {
		items = append(items, "non-static addresses counted: "+strconv.Itoa(nonStatic)+" of "+strconv.Itoa(dhcp))
	} else {
		items = append(items, "waiting for a first address from the hypervisor or the node")
	}
	v.finish(items)
	return v
}
