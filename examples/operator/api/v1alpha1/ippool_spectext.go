package v1alpha1

import (
	"errors"
	"fmt"
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
// It checks nothing: ParseSpec does (ipam.SpecText.Parse with the errors
// naming the IPPool's fields). Parse leaves out a serverIP or router
// outside cidr. The DHCP options, network,
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

// ParseSpec returns the ipam.Spec of s: SpecText parsed, with each bad
// field named as an IPPool's spec names it (rangeStart, serverIP,
// exclude[2]) rather than as ipam.SpecText does (start, reserved[0]). The error wraps
// ipam.ErrInvalidSpec.
func (s IPPoolSpec) ParseSpec() (ipam.Spec, error) {
	t := s.SpecText()
	spec, err := t.Parse()
	fields := ipam.FieldErrors(err)
	if len(fields) == 0 {
		return spec, err
	}
	// Reserved holds serverIP then router, each when set.
	reserved := []string{}
	if s.ServerIP != "" {
		reserved = append(reserved, "serverIP")
	}
	if s.Router != "" {
		reserved = append(reserved, "router")
	}
	names := map[string]string{"cidr": "cidr", "start": "rangeStart", "end": "rangeEnd", "strategy": "strategy"}
	for i, name := range reserved {
		names[fmt.Sprintf("reserved[%d]", i)] = name
	}
	errs := make([]error, len(fields))
	for i, fe := range fields {
		name, ok := names[fe.Field]
		if !ok {
			name = fe.Field // exclude[i] is the IPPool's name too
		}
		renamed := *fe
		renamed.Field = name
		errs[i] = &renamed
	}
	return spec, errors.Join(errs...)
}
