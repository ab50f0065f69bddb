// Package logtest is what the agent's and poolsource's tests share to
// read what was logged. Only tests import it.
package logtest

import (
	"strings"
	"sync"
)

// Buffer collects log output from concurrent goroutines. The zero value
// is an empty buffer ready to use; it must not be copied after first use.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p; it never fails.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is everything written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
