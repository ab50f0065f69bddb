// Package measure holds what the core packages' benchmarks and tests
// measure besides wall time: the process's CPU time, which a shared, busy
// machine disturbs less than wall time, the heap a value retains, and the
// heap allocations of a call. It reads the clock and the runtime's
// statistics, so only tests import it.
package measure
