//go:build unix

package measure

import (
	"syscall"
	"time"
)

// CPU returns the CPU time the process has used so far, user and system,
// all threads (the garbage collector's included), or false when the
// platform does not say. It does not allocate.
func CPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
