//go:build race

package agent

// raceEnabled: the race detector is on, and sync.Pool drops a quarter of
// what is put in it, so a pooled path allocates now and then.
const raceEnabled = true
