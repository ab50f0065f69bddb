package readiness

import "strconv"

// Policy selects the rule [Evaluate] applies.
type Policy int

const (
	// Strict matches addresses to devices NIC by NIC (see [Match]); it is
	// the zero value, the default. Its rules:
	//
	//  1. A usable address is one a host can hold as its own unicast address,
	//     and is not inside an Input.Ignore prefix: the table at IgnoreReason lists every
	//     unusable address with its [IgnoreReason]; every other address is
	//     usable, in both families: private (10.0.0.0/8, fd00::/8), shared
	//     (100.64.0.0/10) and 240.0.0.0/4 ("reserved for future use",
	//     but assigned by Linux and used for overlay uplinks and extra private
	//     ranges; FIELD-CASES.md, case 1) included. A subnet's directed
	//     broadcast address cannot be told without the subnet, so it is not in
	//     the list. Reported addresses are compared unmapped (::ffff:10.0.0.1 is
	//     10.0.0.1) and without zone, and so are Ignore prefixes: one in
	//     IPv4-mapped form, ::ffff:a.b.c.d/n with n of at least 96, is the IPv4
	//     prefix a.b.c.d/(n-96); a shorter IPv6 prefix (::/0) matches no IPv4
	//     address. Unusable addresses are never credited and are listed, with
	//     why, in the verdict of the device whose NIC reported them.
	//  2. A DHCP4 device is satisfied by a usable IPv4 address on its own NICs
	//     that is not a static address of any device; DHCP6 likewise with IPv6;
	//     a device with both needs both.
	//  3. A usable Node address that no NIC reports and that is not a static
	//     address can satisfy a pending DHCP device of its family only when
	//     exactly one such device is pending after the NICs are looked at;
	//     with two or more it is ambiguous, ignored, and the Message says so.
	//     A Node address that some NIC also reports is left to what that NIC's
	//     report decides (even a NIC no device matches); otherwise, one that is
	//     a device's static address is credited to that device, and one no
	//     device waits for is credited to the machine.
	//  4. Static devices never block readiness (their addresses are known from
	//     the spec). A static device is a [Mismatch] when, for a family it has
	//     static addresses of and no DHCP for, its NIC reports usable addresses
	//     and none is one of its own (an IPv6 SLAAC address on an IPv4-only
	//     static NIC is not a mismatch).
	//  5. Ready when every DHCP device is satisfied and at least one usable
	//     address is known from any NIC or the Node, so that a VM with only
	//     static or no-address devices still waits for one sign of life.
	//  6. Verdict.Addresses: every credited address, deduplicated, in device
	//     order, IPv4 before IPv6 within a device, then the addresses known only
	//     from the Node, in Input.NodeAddrs order.
	//
	// A spec is invalid (Reason [ReasonInvalidNetworkSpec], never ready, the
	// problems in Verdict.Problems) when a MAC is not a MAC, two devices share a
	// MAC, a static address cannot be a VM's address (zoned, IPv4-mapped, or
	// unusable under rule 1 without regard to Ignore), a static address is
	// listed twice, or a device asks DHCP for a family it has static addresses
	// of.
	Strict Policy = iota
	// Counting is the legacy rule, reproduced exactly so that a provider can
	// switch to this package first and to Strict second:
	//
	//  1. collect the distinct valid addresses every NIC reports;
	//  2. if fewer than the devices that want an address, add the Node's
	//     internal address: the first valid Input.NodeAddrs entry (adapters list
	//     the Node's InternalIP addresses first);
	//  3. with DHCP devices, ready when the collected addresses that are not a
	//     static address number at least the DHCP devices; without DHCP
	//     devices, ready with at least one collected address.
	//
	// Its device verdicts only explain: while the verdict is not ready every DHCP
	// device is Pending, Credited lists the valid addresses a device's NICs
	// report, and the Node address Counting adds appears only in Addresses.
	//
	// Counting validates no spec and uses no Ignore prefix. Where it differs
	// from Strict (each difference has a test in policy_test.go):
	//   - every valid address counts, those rule 1 of Strict calls unusable
	//     (link-local, loopback, multicast, unspecified, broadcast, ...)
	//     included;
	//   - a virtual IP or any address inside Ignore counts;
	//   - an address on the wrong NIC counts for another device: a second
	//     address on one DHCP NIC satisfies a second DHCP device, and an
	//     unexpected address on a static NIC satisfies a DHCP device;
	//   - addresses of NICs that are not in the spec (a container bridge the
	//     guest tools report) count;
	//   - the Node is consulted only when fewer addresses than devices that
	//     want one were reported, and only its first address;
	//   - families are not modelled: an IPv4 address satisfies a device that
	//     waits for DHCPv6, or for both DHCPv4 and DHCPv6;
	//   - an invalid spec (duplicate MAC, unparsable MAC) is evaluated anyway.
	Counting
)

// String returns "Strict", "Counting" or "Policy(n)".
func (p Policy) String() string {
	switch p {
	case Strict:
		return "Strict"
	case Counting:
		return "Counting"
	}
	return "Policy(" + strconv.Itoa(int(p)) + ")"
}
