package ipam

import "strconv"

// Strategy chooses the address Allocate hands out. Both strategies are
// deterministic: the same calls on the same pool give the same addresses.
type Strategy uint8

const (
	// Lowest (the zero value) hands out the lowest free address.
	Lowest Strategy = iota
	// Sequential hands out the lowest free address after the one Allocate
	// handed out last, wrapping to the start of the range, so a just-released
	// address is not reused at once. The cursor moves only with Allocate;
	// a restored pool resumes after its highest allocated address.
	Sequential
)

// String returns "Lowest", "Sequential" or "Strategy(n)".
func (s Strategy) String() string {
	switch s {
	case Lowest:
		return "Lowest"
	case Sequential:
		return "Sequential"
	}
	return "Strategy(" + strconv.Itoa(int(s)) + ")"
}
