package ipam

import (
	"fmt"
	"strconv"

	"github.com/vmnetkit/vmnetkit/internal/errtext"
)

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

// ParseStrategy returns the Strategy that String names; "" is Lowest (the
// zero value, as a custom resource's omitted field means). Names are
// case-sensitive; any other string is an error.
func ParseStrategy(s string) (Strategy, error) {
	switch s {
	case "", "Lowest":
		return Lowest, nil
	case "Sequential":
		return Sequential, nil
	}
	return 0, fmt.Errorf("ipam: ParseStrategy(%s): want %q or %q", errtext.Quote(s), "Lowest", "Sequential")
}

// MarshalText implements encoding.TextMarshaler: "Lowest" or "Sequential",
// so JSON holds the name, not a number. An unknown Strategy is an error.
func (s Strategy) MarshalText() ([]byte, error) {
	if s != Lowest && s != Sequential {
		return nil, fmt.Errorf("ipam: marshal %v: unknown strategy", s)
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseStrategy.
func (s *Strategy) UnmarshalText(b []byte) error {
	v, err := ParseStrategy(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
