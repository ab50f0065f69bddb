//go:build !unix

package measure

import "time"

// CPU returns the CPU time the process has used so far, or false when the
// platform does not say: off unix, always false.
func CPU() (time.Duration, bool) { return 0, false }
