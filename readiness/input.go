package readiness

import "net/netip"

// Device is one network device of a VM as its spec wants it, in spec order.
//
// The zero Device wants no address: it never blocks readiness and is reported
// as [NotRequired]. DHCP4 and DHCP6 ask for an address of that family from
// DHCP (or SLAAC/DHCPv6 for IPv6, whatever the guest uses); Static lists the
// addresses the spec assigns. A device may mix DHCP of one family with static
// addresses of the other; DHCP and static addresses of the same family are an
// invalid spec (see [ErrStaticWithDHCP]).
type Device struct {
	// MAC identifies the device's NIC in the hypervisor's report. Optional:
	// without it the device is matched to the NIC at the same index. Any of
	// aa:bb:cc:dd:ee:ff, AA-BB-CC-DD-EE-FF, aabb.ccdd.eeff or aabbccddeeff, any
	// case (the spellings leasestore.ParseMAC accepts).
	MAC   string
	DHCP4 bool
	DHCP6 bool
	// Static addresses, without prefix length (see [ParseStaticAddr]).
	Static []netip.Addr
}

// wantsAddress reports whether the device wants any address at all.
func (d Device) wantsAddress() bool { return d.DHCP4 || d.DHCP6 || len(d.Static) > 0 }

// wantsDHCP reports whether the device waits for a DHCP address of any family.
func (d Device) wantsDHCP() bool { return d.DHCP4 || d.DHCP6 }

// NIC is what the hypervisor (its guest tools) reports for one network
// interface of the VM.
//
// A NIC with a MAC is matched to the device with the same MAC; a NIC without
// one is matched by position (index-aligned with Input.Devices). Addrs may hold
// anything the guest reports, including link-local, loopback or invalid
// (zero) addresses: [Evaluate] sorts out what counts.
type NIC struct {
	MAC   string
	Addrs []netip.Addr
}

// Input is everything [Evaluate] looks at. The zero Input has no devices and
// no observations: it is not ready (no address is known).
type Input struct {
	// Devices in spec order; their indexes name them in the verdict.
	Devices []Device
	// NICs as the hypervisor reports them, in its order.
	NICs []NIC
	// NodeAddrs are the Kubernetes Node's addresses, both families, in the
	// Node's order. The Counting policy uses the first valid one as "the
	// Node's internal address", so adapters list InternalIP addresses first.
	NodeAddrs []netip.Addr
	// Ignore lists prefixes whose addresses are never credited (virtual IPs,
	// fake uplink addresses an adapter knows about). Counting does not use it.
	Ignore []netip.Prefix
}
