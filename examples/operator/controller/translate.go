package controller

import (
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// buildPool restores the in-memory pool from obj's spec (through
// IPPoolSpec.SpecText and ipam.SpecText.Parse, whose error wraps
// ipam.ErrInvalidSpec) and status.allocated (ipam.RestoreAllocated). The
// problems are entries the pool could not keep: kept out, and reported.
func buildPool(obj *v1alpha1.IPPool) (*ipam.Pool, []ipam.Problem, error) {
	spec, err := obj.Spec.ParseSpec()
	if err != nil {
		return nil, nil, err
	}
	return ipam.RestoreAllocated(spec, obj.Status.Allocated)
}

// writeStats stores p's allocations (ipam.FormatAllocated) and counts into
// st's own fields (spec.cidr's part), keeping the rest of st.
func writeStats(st *v1alpha1.IPPoolStatus, p *ipam.Pool) {
	fs := familyStatus(p)
	st.Allocated, st.Size, st.Used, st.Available = fs.Allocated, fs.Size, fs.Used, fs.Available
}

// familyStatus returns p's allocations (ipam.FormatAllocated) and counts in
// the text forms of an IPPool's status.
func familyStatus(p *ipam.Pool) v1alpha1.IPPoolFamilyStatus {
	s := p.Stats()
	return v1alpha1.IPPoolFamilyStatus{Allocated: ipam.FormatAllocated(p.Snapshot()),
		Size: s.Size.String(), Used: s.Allocated.String(), Available: s.Free.String()}
}
