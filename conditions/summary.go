package conditions

import (
	"fmt"
	"strings"
)

// Reasons Summary writes of its own.
const (
	// ReasonAsExpected: every term of a Summary is good.
	ReasonAsExpected = "AsExpected"
	// ReasonNotReported: a required term of a Summary is absent.
	ReasonNotReported = "NotReported"
	// ReasonStaleGeneration: a good term observed an older generation than
	// the summary's.
	ReasonStaleGeneration = "StaleGeneration"
	// ReasonNotReady: a term that is not good carries no usable reason of
	// its own (empty or invalid).
	ReasonNotReady = "NotReady"
)

// Term is one condition a Summary reads.
type Term struct {
	// Type is the condition type to read.
	Type string
	// Negative marks a negative-polarity type, whose True is bad and False
	// good (Stalled, Degraded).
	Negative bool
	// Optional makes an absent condition good; otherwise absent is Unknown.
	Optional bool
}

// Summary derives the condition of type typ (e.g. "Ready") from the terms,
// read from conds in the order given:
//
//   - a term is good when its condition is True (False for a Negative term)
//     and, when both generation and its ObservedGeneration are set (non-zero),
//     observed at least generation; bad when it is False (True for a
//     Negative term); otherwise (Unknown, an invalid status, absent and not
//     Optional, or good but for an older generation) unknown;
//   - the summary is False if any term is bad, else Unknown if any is
//     unknown, else True (also with no terms at all);
//   - its Reason is AsExpected when True; otherwise the Reason of the first
//     bad term (first unknown term, for Unknown), where an absent term gives
//     NotReported, an old generation StaleGeneration, and an empty or
//     invalid reason NotReady;
//   - its Message is "" when True; otherwise it names every term that is not
//     good, in order, separated by "; ", e.g.
//     `CacheReady is False (OwnerRestarted): rebuilding; Stalled not reported`,
//     made publishable (PublishableMessage: valid UTF-8, at most
//     MaxMessageLength bytes).
//
// ObservedGeneration is generation and LastTransitionTime is zero: write the
// result with Set. Summary is deterministic: it depends only on the order of
// terms and on the first condition of each type in conds.
func Summary(typ string, generation int64, conds []Condition, terms ...Term) Condition {
	out := Condition{Type: typ, Status: ConditionTrue, ObservedGeneration: generation, Reason: ReasonAsExpected}
	var (
		msgs          []string
		firstBad      string
		firstUnknown  string
		anyBad, anyUn bool
	)
	for _, t := range terms {
		verdict, reason, text := judge(t, generation, conds)
		switch verdict {
		case termGood:
			continue
		case termBad:
			if !anyBad {
				firstBad, anyBad = reason, true
			}
		case termUnknown:
			if !anyUn {
				firstUnknown, anyUn = reason, true
			}
		}
		msgs = append(msgs, text)
	}
	switch {
	case anyBad:
		out.Status, out.Reason = ConditionFalse, firstBad
	case anyUn:
		out.Status, out.Reason = ConditionUnknown, firstUnknown
	default:
		return out
	}
	out.Message = PublishableMessage(strings.Join(msgs, "; "))
	return out
}

type termVerdict int

const (
	termGood termVerdict = iota
	termBad
	termUnknown
)

// judge evaluates one term and, when it is not good, says why.
func judge(t Term, generation int64, conds []Condition) (termVerdict, string, string) {
	c, ok := Find(conds, t.Type)
	if !ok {
		if t.Optional {
			return termGood, "", ""
		}
		return termUnknown, ReasonNotReported, t.Type + " not reported"
	}
	good, bad := ConditionTrue, ConditionFalse
	if t.Negative {
		good, bad = bad, good
	}
	switch c.Status {
	case good:
		if generation != 0 && c.ObservedGeneration != 0 && c.ObservedGeneration < generation {
			return termUnknown, ReasonStaleGeneration, fmt.Sprintf(
				"%s is %s for generation %d, not %d", t.Type, c.Status, c.ObservedGeneration, generation)
		}
		return termGood, "", ""
	case bad:
		return termBad, usableReason(c.Reason), describe(c)
	}
	return termUnknown, usableReason(c.Reason), describe(c)
}

// describe names a condition for a Summary message.
func describe(c Condition) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s is %s", c.Type, c.Status)
	if c.Status == "" {
		b.WriteString(`""`)
	}
	if c.Reason != "" {
		fmt.Fprintf(&b, " (%s)", c.Reason)
	}
	if c.Message != "" {
		b.WriteString(": ")
		b.WriteString(c.Message)
	}
	return b.String()
}

// usableReason returns r if it is a valid condition reason, else NotReady.
func usableReason(r string) string {
	if !ValidReason(r) {
		return ReasonNotReady
	}
	return r
}
