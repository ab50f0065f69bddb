package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile starts writing a CPU profile to path, for -cpuprofile,
// and returns the function that ends it. The agent is measured under
// perfdhcp (hack/bench-dhcp.sh with AGENT_FLAGS="-cpuprofile file"),
// where what counts is the whole process: the socket, the runtime and the
// reply, not one function in a benchmark.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile %q: %w", path, err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
