package logtest

import (
	"io"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2/textlogger"
)

// Logger logs to w in klog's text format what a command run with -v=v
// logs: the commands' own logger (examples/internal/command), for tests
// that read the lines.
func Logger(w io.Writer, v int) logr.Logger {
	return textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(w), textlogger.Verbosity(v)))
}
