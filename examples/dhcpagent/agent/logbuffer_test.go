package agent

import (
	"io"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2/textlogger"
)

// logBuffer collects log output from concurrent handlers.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// newTestLogger logs everything, per-packet lines included, to w in the
// command's format.
func newTestLogger(w io.Writer) logr.Logger {
	return textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(w), textlogger.Verbosity(packetLevel)))
}
