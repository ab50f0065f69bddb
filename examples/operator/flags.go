package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/vmnetkit/vmnetkit/examples/internal/command"
	"github.com/vmnetkit/vmnetkit/examples/internal/manager"
	"github.com/vmnetkit/vmnetkit/examples/operator/controller"
)

// flags holds the command line of the operator: the flags every controller
// command shares (command.Flags) and its own.
type flags struct {
	*command.Flags
	claims         manager.ControllerOptions // -epoch, -concurrent-claims
	maxAllocations int
	logging        *command.Logging
}

// parseFlags parses the operator's command line. Its usage (for -h) and
// parse errors go to stderr; -h returns flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer) (*flags, error) {
	fs := flag.NewFlagSet("operator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &flags{Flags: manager.AddFlags(fs, "hands out addresses")}
	f.claims.AddFlags(fs, "VMNetworkConfigs")
	fs.IntVar(&f.maxAllocations, "max-allocations-per-pool", controller.DefaultMaxAllocations,
		"most addresses one IPPool hands out to MACs: its status must fit in one etcd object (an IPPool's spec.maxAllocations may lower it); claims beyond it wait with reason CapacityLimited")
	f.logging = command.AddLoggingFlags(fs, stderr)
	// klog's own text for -v speaks of a "testing logger".
	fs.Lookup("v").Usage = "log verbosity: 0 logs starts, stops and problems; 1 adds a line per reconcile of a pool or claim; 5 adds controller-runtime's own detail"
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if f.maxAllocations <= 0 {
		return nil, fmt.Errorf("-max-allocations-per-pool=%d: must be positive", f.maxAllocations)
	}
	if err := f.claims.Validate(); err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}
