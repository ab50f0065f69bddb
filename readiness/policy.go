package readiness

import "strconv"

// Policy selects the rule [Evaluate] applies.
type Policy int

const (
	// Strict matches addresses to devices NIC by NIC (the zero value, the
	// default). See the package documentation for its rules.
	Strict Policy = iota
	// Counting is the legacy rule that counts distinct addresses, kept so
	// that a provider can switch to this package without changing behaviour,
	// then to Strict. See the package documentation for its exact rule.
	Counting
)

// String returns "Strict", "Counting" or "Policy(n)".
func (p Policy) String() string {
	switch p {
	case Strict:
		return "Strict"
	case Counting:
		return "Counting"
	}
	return "Policy(" + strconv.Itoa(int(p)) + ")"
}
