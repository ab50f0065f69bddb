package readiness

import (
	"net/netip"
	"strconv"
)

// Reasons a not-ready Verdict gives, shaped for a Kubernetes condition's
// Reason field. A ready Verdict has Reason "".
const (
	// ReasonWaitingForNetworkAddresses: the spec is valid and some device
	// still waits for an address, or no usable address is known yet.
	ReasonWaitingForNetworkAddresses = "WaitingForNetworkAddresses"
	// ReasonInvalidNetworkSpec: the devices cannot be evaluated (see
	// Verdict.Problems); waiting will not help.
	ReasonInvalidNetworkSpec = "InvalidNetworkSpec"
)

// Verdict is the result of [Evaluate].
type Verdict struct {
	Ready bool
	// Reason is "" when Ready, else one of the Reason constants.
	Reason string
	// Message explains a Reason: one item per pending device, in device
	// order, such as "nic 0 (52:54:00:12:34:56): waiting for dhcp4", then
	// general items, joined by "; ". It is "" when Ready. Deterministic.
	Message string
	// Devices holds one verdict per Input.Devices entry, in the same order.
	// It is nil when the spec is invalid.
	Devices []DeviceVerdict
	// Addresses are the credited addresses, deduplicated: under Strict in
	// device order, IPv4 before IPv6 within a device, then the addresses
	// known only from the Node in Input.NodeAddrs order; under Counting the
	// counted addresses in the legacy order (NIC order, then the Node's).
	Addresses []netip.Addr
	// Ignored lists the addresses no device is responsible for and why they
	// were not credited: addresses of NICs matched to no device, unusable or
	// ambiguous Node addresses. Sorted by source, address, then why.
	Ignored []IgnoredAddr
	// Problems lists why the spec is invalid (Reason InvalidNetworkSpec),
	// sorted by device index, then text. Nil otherwise.
	Problems []Problem
}

// DeviceVerdict is the verdict for one device.
type DeviceVerdict struct {
	// Index is the device's position in Input.Devices.
	Index int
	// MAC is the device's MAC in lowercase colon form, "" when the spec
	// gave none (or, under Counting, the spec's text when it is not a MAC).
	MAC   string
	State State
	// WaitingDHCP4 and WaitingDHCP6 say what a Pending device waits for.
	WaitingDHCP4, WaitingDHCP6 bool
	// Match says how the device's NIC was found in the report.
	Match Match
	// Credited are the addresses counted for this device, sorted by source
	// (Hypervisor first), then address (IPv4 before IPv6).
	Credited []CreditedAddr
	// Ignored are the addresses its NIC reported, or Node addresses, that
	// were not credited, with why; sorted by source, address, then why.
	Ignored []IgnoredAddr
}

// State is a device's state in a Verdict.
type State int

const (
	// Pending: a DHCP device still waits for an address of a family it
	// asks for. It is the zero value, so an unset State never reads as done.
	Pending State = iota
	// Satisfied: every DHCP family the device asks for has a credited
	// address; a static device is Satisfied unless it is a Mismatch.
	Satisfied
	// NotRequired: the device wants no address.
	NotRequired
	// Mismatch: a static device's NIC reports usable addresses of a family
	// it has static addresses of, and none of them is one of its own. It
	// does not block readiness; it is worth a warning.
	Mismatch
)

var stateNames = [...]string{Pending: "Pending", Satisfied: "Satisfied", NotRequired: "NotRequired", Mismatch: "Mismatch"}

// String returns the state's name, such as "Pending", or "State(n)".
func (s State) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// Match says how a device's NIC was found in the hypervisor's report.
//
// A NIC whose MAC equals a device's MAC (compared in any of the accepted
// forms and cases) belongs to that device; several NICs with the same MAC all
// do. A device left without a NIC takes the NIC at its own index, unless that
// NIC belongs to another device by MAC, or both the device and the NIC have a
// MAC (then they differ). A NIC with an unparsable MAC matches no MAC and
// still counts as having one. A NIC that belongs to no device is reported in
// Verdict.Ignored; its addresses are never credited under Strict.
type Match int

const (
	// MatchNone: no reported NIC belongs to the device (the zero value).
	MatchNone Match = iota
	// MatchMAC: one or more NICs carry the device's MAC.
	MatchMAC
	// MatchPosition: the NIC at the device's index, because the device or
	// that NIC has no MAC.
	MatchPosition
)

var matchNames = [...]string{MatchNone: "None", MatchMAC: "MAC", MatchPosition: "Position"}

// String returns "None", "MAC", "Position" or "Match(n)".
func (m Match) String() string {
	if m >= 0 && int(m) < len(matchNames) {
		return matchNames[m]
	}
	return "Match(" + strconv.Itoa(int(m)) + ")"
}

// Source says where an address was seen.
type Source int

const (
	// Hypervisor: reported for a NIC by the hypervisor (the zero value).
	Hypervisor Source = iota
	// Node: listed in the Kubernetes Node's addresses.
	Node
)

// String returns "Hypervisor", "Node" or "Source(n)".
func (s Source) String() string {
	switch s {
	case Hypervisor:
		return "Hypervisor"
	case Node:
		return "Node"
	}
	return "Source(" + strconv.Itoa(int(s)) + ")"
}

// CreditedAddr is an address counted for a device, with where it was seen.
type CreditedAddr struct {
	Addr   netip.Addr
	Source Source
}

// IgnoredAddr is an address that was seen but not credited, with why.
// Addr is the address as reported (zone and IPv4-mapped form kept).
type IgnoredAddr struct {
	Addr   netip.Addr
	Source Source
	Why    IgnoreReason
}

// IgnoreReason says why an address was not credited.
//
// An address is usable when a host can hold it as its own unicast address.
// This table is the whole list of blocks that are not (TestUnusableAddressTable
// has a case per row, and TestAddressOutsideTableIsUsable checks that any
// address outside them makes a DHCP device ready under both policies):
//
//	block                           reason         why it is no host's own address            RFC
//	------------------------------  -------------  -----------------------------------------  ---------------------------
//	the zero netip.Addr             invalid        an empty report, no address at all         -
//	0.0.0.0, ::                     unspecified    "no address": a source before one is had   1122 3.2.1.3, 4291 2.5.2
//	0.0.0.0/8 but 0.0.0.0           this network   "this host on this network", a source      1122 3.2.1.3
//	                                               only while booting, never a destination
//	127.0.0.0/8, ::1                loopback       never leaves the host                      1122 3.2.1.3, 4291 2.5.3
//	169.254.0.0/16, fe80::/10       link-local     valid on one link only, made up by the     3927, 4291 2.5.6
//	                                               host: neither a DHCP lease nor routable
//	224.0.0.0/4, ff00::/8           multicast      a group, not a host                        5771, 4291 2.7
//	255.255.255.255                 broadcast      limited broadcast: every host on the link  919 7, 8190
//	inside an Input.Ignore prefix   in an ignored  the caller's virtual IPs (VIPs, a CNI's    -
//	                                prefix         fake IP), never a NIC's own
type IgnoreReason int

const (
	// IgnoredInvalid: the zero netip.Addr (an empty report).
	IgnoredInvalid IgnoreReason = iota
	// IgnoredUnspecified: 0.0.0.0 or ::.
	IgnoredUnspecified
	// IgnoredLoopback: 127.0.0.0/8 or ::1.
	IgnoredLoopback
	// IgnoredLinkLocal: 169.254.0.0/16 or fe80::/10.
	IgnoredLinkLocal
	// IgnoredMulticast: 224.0.0.0/4 or ff00::/8.
	IgnoredMulticast
	// IgnoredPrefix: inside one of Input.Ignore.
	IgnoredPrefix
	// IgnoredStaticOfOther: a static address of another device, reported
	// on this device's NIC.
	IgnoredStaticOfOther
	// IgnoredNotOwnStatic: on a device with static addresses of this
	// family and no DHCP for it, an address that is not one of them.
	IgnoredNotOwnStatic
	// IgnoredFamilyNotWanted: the device wants no address of this family.
	IgnoredFamilyNotWanted
	// IgnoredUnmatchedNIC: reported on a NIC that matches no device.
	IgnoredUnmatchedNIC
	// IgnoredAmbiguous: a Node address that no NIC reports while two or
	// more DHCP devices of its family are pending; it could be any of them.
	IgnoredAmbiguous
	// IgnoredBroadcast: 255.255.255.255, the limited broadcast address.
	IgnoredBroadcast
	// IgnoredThisNetwork: 0.0.0.0/8 ("this network") other than 0.0.0.0.
	IgnoredThisNetwork
)

var ignoreNames = [...]string{
	IgnoredInvalid:         "invalid",
	IgnoredUnspecified:     "unspecified",
	IgnoredLoopback:        "loopback",
	IgnoredLinkLocal:       "link-local",
	IgnoredMulticast:       "multicast",
	IgnoredPrefix:          "in an ignored prefix",
	IgnoredStaticOfOther:   "static address of another device",
	IgnoredNotOwnStatic:    "not one of the device's static addresses",
	IgnoredFamilyNotWanted: "family not wanted by the device",
	IgnoredUnmatchedNIC:    "on a NIC that matches no device",
	IgnoredAmbiguous:       "ambiguous: several devices wait for this family",
	IgnoredBroadcast:       "broadcast",
	IgnoredThisNetwork:     "this network",
}

// String returns a short lowercase phrase, such as "link-local".
func (r IgnoreReason) String() string {
	if r >= 0 && int(r) < len(ignoreNames) {
		return ignoreNames[r]
	}
	return "IgnoreReason(" + strconv.Itoa(int(r)) + ")"
}
