package v1alpha1

import (
	"slices"

	"github.com/vmnetkit/vmnetkit/ipam"
)

// SpecText returns the part of s that describes the pool's addresses in the
// core's text form: the one translation from an IPPool to an ipam.Spec,
// which every program that reads IPPools (the operator, the DHCP agent)
// goes through, parsing the result with ipam.SpecText.Parse:
//
//	cidr                 CIDR
//	rangeStart           Start
//	rangeEnd             End
//	exclude              Exclude
//	serverIP, router     Reserved, in that order, each when set
//	strategy             Strategy
//	                     Owners "MAC": an IPPool's owners are NIC MACs
//
// It checks nothing: Parse does, and its errors name the SpecText field
// (start for rangeStart, reserved[0] for serverIP when it is set). Parse
// leaves out a serverIP or router outside cidr. The DHCP options, network,
// leaseTime and paused are not part of it. Empty lists are nil, so two
// specs that build the same pool have deeply equal SpecTexts.
func (s IPPoolSpec) SpecText() ipam.SpecText {
	t := ipam.SpecText{
		CIDR:     s.CIDR,
		Start:    s.RangeStart,
		End:      s.RangeEnd,
		Strategy: s.Strategy,
		Owners:   ipam.MACOwners.String(),
	}
	if len(s.Exclude) > 0 {
		t.Exclude = slices.Clone(s.Exclude)
	}
	for _, a := range []string{s.ServerIP, s.Router} {
		if a != "" {
			t.Reserved = append(t.Reserved, a)
		}
	}
	return t
}
