package conditions

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Limits the API server (and the CRD schema generated from metav1.Condition)
// puts on a condition. Lengths are in bytes, as the API server counts them.
const (
	MaxTypeLength       = 316   // whole type, prefix included (CRD schema)
	MaxTypeNameLength   = 63    // the part after "/" (qualified name)
	MaxTypePrefixLength = 253   // the DNS subdomain before "/"
	MaxReasonLength     = 1024  // reason
	MaxMessageLength    = 32768 // message
)

// ErrInvalid is wrapped by every error Validate returns.
var ErrInvalid = errors.New("invalid condition")

// FieldError is one rule a condition breaks. It wraps ErrInvalid.
type FieldError struct {
	Type   string // the condition's Type, as given
	Field  string // JSON name of the field: "type", "status", "reason", ...
	Value  string // the offending value, quoted, or a description of it
	Detail string // what the rule requires
}

// Error returns e as one line: the operation, the condition's type, the
// field and its value, and what the rule requires.
func (e *FieldError) Error() string {
	return fmt.Sprintf("conditions: validate %q: %s %s: %s", e.Type, e.Field, e.Value, e.Detail)
}

// Unwrap returns ErrInvalid.
func (e *FieldError) Unwrap() error { return ErrInvalid }

// The range of instants RFC 3339 (and so the API server) can hold.
var (
	minTime = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// Validate checks c against the rules the API server applies to a
// metav1.Condition, so a controller finds out before its status write is
// rejected. It returns nil, or errors.Join of one *FieldError per violation,
// in field order (type, status, observedGeneration, lastTransitionTime,
// reason, message):
//
//   - type: a qualified name, an optional DNS-1123 subdomain prefix (at most
//     253 bytes) and "/", then a name of at most 63 bytes matching
//     ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]; at most 316 bytes in all
//     (the CRD schema's limit, one less than the longest qualified name);
//   - status: True, False or Unknown;
//   - observedGeneration: not negative;
//   - lastTransitionTime: set (non-zero) and within the years 0 to 9999;
//   - reason: required, matching ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$,
//     at most 1024 bytes;
//   - message: at most 32768 bytes.
//
// It does not allocate for a valid condition.
func Validate(c Condition) error {
	v := violations{typ: c.Type}

	for _, d := range typeProblems(c.Type) {
		v.add("type", quoteShort(c.Type), d)
	}
	switch c.Status {
	case ConditionTrue, ConditionFalse, ConditionUnknown:
	default:
		v.add("status", quoteShort(string(c.Status)), `must be "True", "False" or "Unknown"`)
	}
	if c.ObservedGeneration < 0 {
		v.add("observedGeneration", fmt.Sprint(c.ObservedGeneration), "must not be negative")
	}
	switch t := c.LastTransitionTime; {
	case t.IsZero():
		v.add("lastTransitionTime", "(zero)", "is required")
	case t.Before(minTime) || !t.Before(maxTime):
		v.add("lastTransitionTime", fmt.Sprintf("(year %d)", t.UTC().Year()), "must be within the years 0 to 9999 (RFC 3339)")
	}
	switch r := c.Reason; {
	case r == "":
		v.add("reason", `""`, "is required")
	default:
		if !isReason(r) {
			v.add("reason", quoteShort(r), "must start with a letter, contain only letters, digits and '_', ',' or ':', and end with a letter, digit or '_' (e.g. \"MyReason\", \"Reason_A,ReasonB\")")
		}
		if len(r) > MaxReasonLength {
			v.add("reason", fmt.Sprintf("(%d bytes)", len(r)), fmt.Sprintf("must be at most %d bytes", MaxReasonLength))
		}
	}
	if len(c.Message) > MaxMessageLength {
		v.add("message", fmt.Sprintf("(%d bytes)", len(c.Message)), fmt.Sprintf("must be at most %d bytes", MaxMessageLength))
	}
	return errors.Join(v.errs...)
}

// violations collects Validate's errors.
type violations struct {
	typ  string
	errs []error
}

func (v *violations) add(field, value, detail string) {
	v.errs = append(v.errs, &FieldError{Type: v.typ, Field: field, Value: value, Detail: detail})
}

// typeProblems restates k8s.io/apimachinery's IsQualifiedName, plus the CRD
// schema's overall length limit.
func typeProblems(typ string) []string {
	if typ == "" {
		return []string{"is required"}
	}
	var ps []string
	name := typ
	if prefix, rest, ok := strings.Cut(typ, "/"); ok {
		if strings.Contains(rest, "/") {
			return []string{`must be a qualified name: an optional DNS subdomain prefix and "/", then a name (e.g. "Ready", "example.com/CacheReady")`}
		}
		name = rest
		switch {
		case prefix == "":
			ps = append(ps, "prefix part must not be empty")
		default:
			if len(prefix) > MaxTypePrefixLength {
				ps = append(ps, fmt.Sprintf("prefix part must be at most %d bytes", MaxTypePrefixLength))
			}
			if !isSubdomain(prefix) {
				ps = append(ps, "prefix part must be a DNS-1123 subdomain: lower-case letters, digits, '-' and '.', starting and ending each label with a letter or digit (e.g. \"example.com\")")
			}
		}
	}
	switch {
	case name == "":
		ps = append(ps, "name part must not be empty")
	default:
		if len(name) > MaxTypeNameLength {
			ps = append(ps, fmt.Sprintf("name part must be at most %d bytes", MaxTypeNameLength))
		}
		if !isTypeName(name) {
			ps = append(ps, "name part must consist of letters, digits, '-', '_' or '.', and start and end with a letter or digit (e.g. \"Ready\", \"cache.ready\")")
		}
	}
	if len(typ) > MaxTypeLength {
		ps = append(ps, fmt.Sprintf("must be at most %d bytes", MaxTypeLength))
	}
	return ps
}

// quoteShort quotes s, eliding the middle of a long value so that an error
// stays readable.
func quoteShort(s string) string {
	const max = 64
	if len(s) <= max {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q... (%d bytes)", truncateUTF8(s, max), len(s))
}

// ValidReason reports whether r is a Reason that Validate (and the API
// server) accepts: not empty, at most MaxReasonLength bytes, and matching
// the reason grammar. It does not allocate.
func ValidReason(r string) bool {
	return r != "" && len(r) <= MaxReasonLength && isReason(r)
}
