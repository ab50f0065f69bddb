// Package logtest is what the examples' tests share to read what was
// logged or printed while goroutines and processes still write. Only tests
// (and the test harness kubetest) import it.
package logtest

import (
	"strings"
	"sync"
)

// Buffer collects output from concurrent writers (goroutines, a child
// process's stdout and stderr) for a test to read at any time. The zero value
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
