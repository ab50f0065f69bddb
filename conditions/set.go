package conditions

import "time"

// Set adds c to conds, or replaces the condition of the same type in place,
// keeping the order of the others, and reports whether anything changed, so
// a caller skips a status write that would change nothing.
//
// LastTransitionTime is owned by Set: c's own value is ignored. A new
// condition, or one whose Status changes, gets now in UTC truncated to whole
// seconds (as the API server stores it); otherwise the stored time is kept,
// so a changed Reason, Message or ObservedGeneration is reported as a change
// without moving the time. A stored zero time is repaired with now.
//
// Set never writes to conds' backing array. When nothing changes it returns
// conds itself and false; otherwise it returns a new slice. Later duplicates
// of c.Type (which the API server rejects) are removed.
func Set(conds []Condition, c Condition, now time.Time) ([]Condition, bool) {
	now = now.UTC().Truncate(time.Second)
	i := index(conds, c.Type)
	if i < 0 {
		c.LastTransitionTime = now
		out := make([]Condition, len(conds), len(conds)+1)
		copy(out, conds)
		return append(out, c), true
	}
	old := conds[i]
	switch {
	case old.Status != c.Status || old.LastTransitionTime.IsZero():
		c.LastTransitionTime = now
	default:
		c.LastTransitionTime = old.LastTransitionTime
	}
	dup := index(conds[i+1:], c.Type) >= 0
	if c == old && !dup {
		return conds, false
	}
	out := make([]Condition, 0, len(conds))
	out = append(out, conds[:i]...)
	out = append(out, c)
	for _, o := range conds[i+1:] {
		if o.Type != c.Type {
			out = append(out, o)
		}
	}
	return out, true
}

// Find returns the first condition of type typ and true, or the zero
// Condition and false. It does not allocate.
func Find(conds []Condition, typ string) (Condition, bool) {
	if i := index(conds, typ); i >= 0 {
		return conds[i], true
	}
	return Condition{}, false
}

// Remove returns conds without any condition of type typ, keeping the order
// of the others, and whether one was removed. It never writes to conds'
// backing array: it returns conds itself when typ is absent, and a new
// slice otherwise.
func Remove(conds []Condition, typ string) ([]Condition, bool) {
	if index(conds, typ) < 0 {
		return conds, false
	}
	out := make([]Condition, 0, len(conds)-1)
	for _, c := range conds {
		if c.Type != typ {
			out = append(out, c)
		}
	}
	return out, true
}

// IsTrue reports whether the condition of type typ is present with status
// True. It does not allocate.
func IsTrue(conds []Condition, typ string) bool { return statusOf(conds, typ) == ConditionTrue }

// IsFalse reports whether the condition of type typ is present with status
// False. It does not allocate.
func IsFalse(conds []Condition, typ string) bool { return statusOf(conds, typ) == ConditionFalse }

// IsUnknown reports whether the condition of type typ is absent or has a
// status other than True and False (Unknown, or an invalid value). It does
// not allocate.
func IsUnknown(conds []Condition, typ string) bool {
	s := statusOf(conds, typ)
	return s != ConditionTrue && s != ConditionFalse
}

// statusOf is the status of the first condition of type typ; Unknown if absent.
func statusOf(conds []Condition, typ string) Status {
	if i := index(conds, typ); i >= 0 {
		return conds[i].Status
	}
	return ConditionUnknown
}

func index(conds []Condition, typ string) int {
	for i := range conds {
		if conds[i].Type == typ {
			return i
		}
	}
	return -1
}
