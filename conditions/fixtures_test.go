package conditions

// The times, conditions and error readers that the tests of this package
// share; each test file keeps only what it alone uses.

import (
	"errors"
	"time"
)

var (
	t0 = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	t1 = time.Date(2026, 12, 2, 11, 30, 15, 987654321, time.UTC) // truncates to 11:30:15
)

func cond(typ string, st Status, gen int64, at time.Time, reason, msg string) Condition {
	return Condition{Type: typ, Status: st, ObservedGeneration: gen, LastTransitionTime: at, Reason: reason, Message: msg}
}

func valid() Condition {
	return cond("CacheReady", ConditionTrue, 3, t0, "CacheBuilt", "built")
}

// fields lists the fields of Validate's violations, in order.
func fields(err error) []string {
	var out []string
	if err == nil {
		return out
	}
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var fe *FieldError
		if !errors.As(e, &fe) {
			out = append(out, "not a FieldError: "+e.Error())
			continue
		}
		out = append(out, fe.Field)
	}
	return out
}
