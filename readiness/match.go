package readiness

import "github.com/vmnetkit/vmnetkit/internal/hwaddr"

// nicMatch is the set of reported NICs that belong to one device.
type nicMatch struct {
	how  Match
	nics []int // indexes into Input.NICs, ascending
}

// macKey is a MAC as matching sees it: absent, valid (canonical form), or
// present but unparsable, which matches nothing and still counts as "has a
// MAC" so that it does not fall back to matching by position.
type macKey struct {
	has   bool
	valid bool
	mac   string
}

func keyOf(s string) macKey {
	if s == "" {
		return macKey{}
	}
	m, ok := hwaddr.Canonical(s)
	return macKey{has: true, valid: ok, mac: m}
}

// matchNICs finds each device's NICs: every NIC whose MAC equals the
// device's; failing that, the NIC at the device's index when that NIC belongs
// to no device by MAC and the device or the NIC has no MAC. owned[j] reports
// whether NIC j belongs to some device. The result does not depend on the
// order of NICs that carry a device's MAC.
func matchNICs(devs []Device, nics []NIC) (matches []nicMatch, owned []bool) {
	matches = make([]nicMatch, len(devs))
	owned = make([]bool, len(nics))
	nicKeys := make([]macKey, len(nics))
	for j, n := range nics {
		nicKeys[j] = keyOf(n.MAC)
	}
	devKeys := make([]macKey, len(devs))
	for i, d := range devs {
		k := keyOf(d.MAC)
		devKeys[i] = k
		if !k.valid {
			continue
		}
		for j, nk := range nicKeys {
			if nk.valid && nk.mac == k.mac {
				matches[i].how = MatchMAC
				matches[i].nics = append(matches[i].nics, j)
				owned[j] = true
			}
		}
	}
	for i := range devs {
		if matches[i].how != MatchNone || i >= len(nics) || owned[i] {
			continue
		}
		if devKeys[i].has && nicKeys[i].has {
			continue // both have a MAC and they differ: not this device's NIC
		}
		matches[i] = nicMatch{how: MatchPosition, nics: []int{i}}
		owned[i] = true
	}
	return matches, owned
}
