package leasestore_test

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/measure"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// TestErrorsOfHugeInputsAreSmall: a 10 MB value (a MAC, an owner, a
// domain name) gives an error of a few hundred bytes, and neither the call
// nor the error's text allocates more than 64 KB (issue 26: errors quoted
// their whole input, a NUL byte as four).
func TestErrorsOfHugeInputsAreSmall(t *testing.T) {
	s := strings.Repeat("\x00", 10<<20)
	hw := net.HardwareAddr(s)
	other := s + "b"
	snap := ipam.Snapshot{Spec: spec4, Allocations: []ipam.Allocation{
		{Addr: netip.MustParseAddr("10.0.0.5"), Owner: s},                   // not a MAC
		{Addr: netip.MustParseAddr("10.0.0.6"), Owner: "52:54:00:00:00:01"}, // kept
		{Addr: netip.MustParseAddr("10.0.0.7"), Owner: "52-54-00-00-00-01"}, // the same MAC
		{Addr: netip.MustParseAddr("10.0.0.8"), Owner: other},
	}}
	opts := leasestore.Options{DomainName: s, DomainSearch: []string{s}}
	tests := []struct {
		name   string
		fields int
		call   func() error
	}{
		{"ParseMAC", 1, func() error { _, err := leasestore.ParseMAC(s); return err }},
		{"MACFrom", 1, func() error { _, err := leasestore.MACFrom(hw); return err }},
		{"Build", 5, func() error {
			_, problems := leasestore.Build(snap, opts)
			var errs []error
			for _, p := range problems {
				errs = append(errs, p)
			}
			return errors.Join(errs...)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			alloc := measure.Bytes(func() { err = tt.call() })
			if err == nil {
				t.Fatal("no error")
			}
			var text string
			textAlloc := measure.Bytes(func() { text = err.Error() })
			if len(text) > tt.fields<<10 {
				t.Errorf("error is %d bytes, more than %d: %.300s…", len(text), tt.fields<<10, text)
			}
			if alloc > 64<<10 || textAlloc > 64<<10 {
				t.Errorf("the call allocated %d bytes and Error() %d, more than %d", alloc, textAlloc, 64<<10)
			}
		})
	}
}
