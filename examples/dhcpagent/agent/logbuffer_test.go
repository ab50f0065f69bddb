package agent

import (
	"io"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2/textlogger"
)

// newTestLogger logs everything, per-packet lines included, to w in the
// command's format.
func newTestLogger(w io.Writer) logr.Logger {
	return textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(w), textlogger.Verbosity(packetLevel)))
}
