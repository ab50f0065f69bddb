package measure

import "runtime"

// Retained returns the bytes of live heap that build's result retains:
// the live heap after a garbage collection once build has returned, less
// the live heap after one before it was called. The result stays alive
// until then, so it counts whether or not the caller keeps it.
func Retained(build func() any) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// Mallocs returns the number of heap allocations of runs calls of f,
// after one warm-up call, on one P so that no other goroutine's count
// mixes in. Unlike testing.AllocsPerRun it does not round an average down
// to zero.
func Mallocs(runs int, f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

// Bytes returns the bytes of heap that one call of f allocates, on one P
// so that no other goroutine's allocation mixes in (the runtime's own
// background work may add a few hundred bytes).
func Bytes(f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
