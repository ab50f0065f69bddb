package provider

import (
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
)

// The deep copies are written by hand (no code generator in this module);
// every slice is cloned, so a copy shares no memory with its original.
// conditions.Condition holds only values, so cloning its slice is deep.

// DeepCopyInto copies m into out.
func (m *VMMachine) DeepCopyInto(out *VMMachine) {
	*out = *m
	out.TypeMeta = m.TypeMeta
	m.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	m.Spec.DeepCopyInto(&out.Spec)
	m.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a deep copy of m, or nil for nil.
func (m *VMMachine) DeepCopy() *VMMachine {
	if m == nil {
		return nil
	}
	out := new(VMMachine)
	m.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (m *VMMachine) DeepCopyObject() runtime.Object {
	if c := m.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies l into out.
func (l *VMMachineList) DeepCopyInto(out *VMMachineList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]VMMachine, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a deep copy of l, or nil for nil.
func (l *VMMachineList) DeepCopy() *VMMachineList {
	if l == nil {
		return nil
	}
	out := new(VMMachineList)
	l.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (l *VMMachineList) DeepCopyObject() runtime.Object {
	if c := l.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies s into out.
func (s *VMMachineSpec) DeepCopyInto(out *VMMachineSpec) {
	*out = *s
	if s.Network.Devices != nil {
		out.Network.Devices = make([]NetworkDevice, len(s.Network.Devices))
		for i, d := range s.Network.Devices {
			d.IPAddresses = slices.Clone(d.IPAddresses)
			out.Network.Devices[i] = d
		}
	}
}

// DeepCopyInto copies s into out.
func (s *VMMachineStatus) DeepCopyInto(out *VMMachineStatus) {
	*out = *s
	if s.Network != nil {
		out.Network = make([]NICStatus, len(s.Network))
		for i, n := range s.Network {
			n.IPAddresses = slices.Clone(n.IPAddresses)
			out.Network[i] = n
		}
	}
	out.Addresses = slices.Clone(s.Addresses)
	out.Conditions = slices.Clone(s.Conditions)
}

// DeepCopy returns a deep copy of s, or nil for nil.
func (s *VMMachineStatus) DeepCopy() *VMMachineStatus {
	if s == nil {
		return nil
	}
	out := new(VMMachineStatus)
	s.DeepCopyInto(out)
	return out
}
