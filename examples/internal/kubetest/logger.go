package kubetest

import (
	"fmt"
	"os"
	"strings"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// quietLogs makes controller-runtime print errors only. controller-runtime
// keeps the first logger it is given, so a caller that set its own before
// Start keeps it.
func quietLogs() {
	ctrllog.SetLogger(logr.New(errorSink{}))
}

// errorSink is a logr.LogSink that drops info messages and writes errors to
// stderr, one line each.
type errorSink struct {
	name   string
	values []any
}

func (errorSink) Init(logr.RuntimeInfo)    {}
func (errorSink) Enabled(int) bool         { return false }
func (errorSink) Info(int, string, ...any) {}

func (s errorSink) Error(err error, msg string, kv ...any) {
	var b strings.Builder
	if s.name != "" {
		fmt.Fprintf(&b, "%s: ", s.name)
	}
	fmt.Fprintf(&b, "%s: %v", msg, err)
	all := append(append([]any(nil), s.values...), kv...)
	for i := 0; i+1 < len(all); i += 2 {
		fmt.Fprintf(&b, " %v=%v", all[i], all[i+1])
	}
	fmt.Fprintln(os.Stderr, b.String())
}

func (s errorSink) WithValues(kv ...any) logr.LogSink {
	s.values = append(append([]any(nil), s.values...), kv...)
	return s
}

func (s errorSink) WithName(name string) logr.LogSink {
	if s.name != "" {
		name = s.name + "." + name
	}
	s.name = name
	return s
}
