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
// st, keeping its conditions and epoch.
func writeStats(st *v1alpha1.IPPoolStatus, p *ipam.Pool) {
	st.Allocated = ipam.FormatAllocated(p.Snapshot())
	s := p.Stats()
	st.Size, st.Used, st.Available = s.Size.String(), s.Allocated.String(), s.Free.String()
}
