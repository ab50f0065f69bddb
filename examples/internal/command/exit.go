package command

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// ExitCode returns the exit status for the error a command's run returned,
// after printing it to stderr as "name: error": 0 for nil and for
// flag.ErrHelp (the flag set already printed the usage), 1 otherwise.
func ExitCode(name string, err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	return 1
}
