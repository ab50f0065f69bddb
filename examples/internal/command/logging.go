package command

import (
	"flag"
	"io"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2/textlogger"
)

// Verbosity levels every command uses with logr's V: level 0 (the default)
// logs what an operator acts on (starts, stops, table or pool changes,
// summaries, problems); Debug adds one line per request or reconcile.
const Debug = 1

// Logging holds the logging flags of one command. Create it with
// AddLoggingFlags before the flag set is parsed.
type Logging struct {
	config *textlogger.Config
}

// AddLoggingFlags registers -v (verbosity: 0 logs what an operator acts on,
// 1 adds a line per request) and -vmodule (per-file verbosity, as klog's) on
// fs, and returns the Logging whose Logger honours them. Lines go to w.
func AddLoggingFlags(fs *flag.FlagSet, w io.Writer) *Logging {
	config := textlogger.NewConfig(textlogger.Output(w))
	config.AddFlags(fs)
	// klog's own help for -v speaks of a "testing logger"; say what the
	// levels mean here. A command may narrow the text further.
	fs.Lookup("v").Usage = "log verbosity: 0 logs starts, stops, changes and problems; 1 adds a line per request or reconcile; higher adds the libraries' own detail"
	fs.Lookup("vmodule").Usage = "per-file verbosity, as comma-separated file=level pairs (file names without .go, * and ? match)"
	return &Logging{config: config}
}

// Logger returns the logger configured by the parsed flags. Call it after
// the flag set is parsed.
func (l *Logging) Logger() logr.Logger {
	return textlogger.NewLogger(l.config)
}
