package readiness

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"

	"github.com/vmnetkit/vmnetkit/internal/errtext"
	"github.com/vmnetkit/vmnetkit/internal/hwaddr"
)

// validate checks the devices for Strict and returns each device's MAC in
// canonical form ("" for none) and the problems found, sorted.
//
// A spec is invalid when a MAC is not a MAC, two devices share a MAC, a
// static address cannot be a VM's address (see [ParseStaticAddr]), a static
// address is listed twice (on one device or two), or a device asks DHCP for a
// family it also has static addresses of.
func validate(devs []Device) ([]string, []Problem) {
	macs := make([]string, len(devs))
	var problems []Problem
	macOwner := map[string]int{}
	staticOwner := map[netip.Addr]int{}
	for i, d := range devs {
		if d.MAC != "" {
			m, ok := hwaddr.Canonical(d.MAC)
			switch first, dup := macOwner[m]; {
			case !ok:
				problems = append(problems, Problem{i, fmt.Errorf("MAC %s: %w", errtext.Quote(d.MAC), ErrInvalidMAC)})
				m = d.MAC
			case dup:
				problems = append(problems, Problem{i, fmt.Errorf("MAC %s: %w (nic %d has it too)", m, ErrDuplicateMAC, first)})
			default:
				macOwner[m] = i
			}
			macs[i] = m
		}
		for _, a := range d.Static {
			if why := staticDefect(a); why != "" {
				problems = append(problems, Problem{i, fmt.Errorf("static address %s: %w: %s", a, ErrInvalidStatic, why)})
				continue
			}
			if a.Is4() && d.DHCP4 || a.Is6() && d.DHCP6 {
				problems = append(problems, Problem{i, fmt.Errorf("static address %s: %w", a, ErrStaticWithDHCP)})
			}
			switch first, dup := staticOwner[a]; {
			case dup && first == i:
				problems = append(problems, Problem{i, fmt.Errorf("static address %s: %w (listed twice)", a, ErrDuplicateStatic)})
			case dup:
				problems = append(problems, Problem{i, fmt.Errorf("static address %s: %w (nic %d has it too)", a, ErrDuplicateStatic, first)})
			default:
				staticOwner[a] = i
			}
		}
	}
	slices.SortStableFunc(problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Device, b.Device), cmp.Compare(a.Err.Error(), b.Err.Error()))
	})
	return macs, problems
}
