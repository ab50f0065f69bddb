package ipam

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/measure"
)

// Bounds on the error of a huge input (issue 26): every parser quoted its
// whole input, SpecText and AddressList twice, and NUL bytes grow fourfold
// when quoted, so seven fields of 10 MB made SpecText.Parse allocate 3 GB
// for a 294 MB error. Now a quoted value is cut (internal/errtext).
const (
	maxErrorPerField = 1 << 10  // bytes of error text a bad field may take
	maxErrorAlloc    = 64 << 10 // bytes a failing call (or its Error) may allocate
)

// huge returns a 10 MB string of unit repeated.
func huge(unit string) string { return strings.Repeat(unit, 10<<20/len(unit)) }

// checkSmallError checks that err, the error of call, names fields bad
// fields in at most maxErrorPerField bytes each, and that neither call
// nor err.Error() allocated more than maxErrorAlloc bytes.
func checkSmallError(t *testing.T, fields int, call func() error) {
	t.Helper()
	var err error
	alloc := measure.Bytes(func() { err = call() })
	if err == nil {
		t.Fatal("no error")
	}
	var text string
	textAlloc := measure.Bytes(func() { text = err.Error() })
	if len(text) > fields*maxErrorPerField {
		t.Errorf("error is %d bytes, more than %d for %d bad fields: %.300s…", len(text), fields*maxErrorPerField, fields, text)
	}
	if alloc > maxErrorAlloc {
		t.Errorf("the call allocated %d bytes, more than %d", alloc, maxErrorAlloc)
	}
	if textAlloc > maxErrorAlloc {
		t.Errorf("Error() allocated %d bytes, more than %d", textAlloc, maxErrorAlloc)
	}
}

// TestSpecTextErrorOfHugeFieldsIsSmall is issue 26's case: a 10 MB string
// in each of SpecText's seven fields, of NUL bytes (each quoted in four),
// of invalid UTF-8 and of plain letters.
func TestSpecTextErrorOfHugeFieldsIsSmall(t *testing.T) {
	for _, unit := range []string{"\x00", "\xff", "a", "1.2.3.4-", "fe80::1%"} {
		t.Run(strings.ToValidUTF8(unit, "?"), func(t *testing.T) {
			s := huge(unit)
			text := SpecText{CIDR: s, Start: s, End: s, Exclude: []string{s}, Reserved: []string{s}, Strategy: s, Owners: s}
			checkSmallError(t, 7, func() error {
				_, err := text.Parse()
				return err
			})
		})
	}
}

// TestErrorsOfHugeInputsAreSmall: every parser of the package, and the
// pool's operations that quote an owner, given a 10 MB value.
func TestErrorsOfHugeInputsAreSmall(t *testing.T) {
	// Each input is made here, not in the calls that are measured.
	s := huge("\x00")
	zoned, prefix, fromTo, bad := "fe80::1%"+s, s+"/24", "10.0.0.1-"+s, "\xff"+s
	other := s + "b"
	status := map[string]string{s: "vm-a", "10.0.0.9": bad}
	snap := Snapshot{Spec: Spec{Prefix: mpp("10.0.0.0/24")}, Allocations: []Allocation{{mpa("10.0.0.7"), s}, {mpa("10.0.0.7"), other}}}
	pool, _ := New(Spec{Prefix: mpp("10.0.0.0/24")})
	_ = pool.AllocateAddr(mpa("10.0.0.5"), "vm-a")
	tests := []struct {
		name   string
		fields int
		call   func() error
	}{
		{"ParseAddr", 1, func() error { _, err := ParseAddr(s); return err }},
		{"ParseAddr zone", 1, func() error { _, err := ParseAddr(zoned); return err }},
		{"ParseRange", 1, func() error { _, err := ParseRange(s); return err }},
		{"ParseRange prefix", 1, func() error { _, err := ParseRange(prefix); return err }},
		{"ParseRange from-to", 1, func() error { _, err := ParseRange(fromTo); return err }},
		{"ParseStrategy", 1, func() error { _, err := ParseStrategy(s); return err }},
		{"ParseOwnerKind", 1, func() error { _, err := ParseOwnerKind(s); return err }},
		{"ParseCount", 1, func() error { _, err := ParseCount(s); return err }},
		{"AddressList.Parse", 3, func() error {
			_, err := AddressList{Addresses: []string{s}, Prefix: 24, Gateway: s, ExcludedAddresses: []string{s}}.Parse()
			return err
		}},
		{"ParseAllocated", 2, func() error {
			_, problems := ParseAllocated(Spec{Prefix: mpp("10.0.0.0/24")}, status)
			return errors.Join(problemErrs(problems)...)
		}},
		{"Allocate", 1, func() error { _, err := pool.Allocate(bad); return err }},
		{"AllocateAddr in use", 1, func() error { return pool.AllocateAddr(mpa("10.0.0.5"), s) }},
		{"Restore", 2, func() error {
			_, problems, _ := Restore(snap)
			return errors.Join(problemErrs(problems)...)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkSmallError(t, tt.fields, tt.call) })
	}
}

func problemErrs(ps []Problem) []error {
	var errs []error
	for _, p := range ps {
		errs = append(errs, p)
	}
	return errs
}

// TestSpecErrorOfHugeZoneIsSmall: a Spec value with a 10 MB zone gives a
// short error (its text is made from the value, so the call may allocate
// the value's size once, no more).
func TestSpecErrorOfHugeZoneIsSmall(t *testing.T) {
	zone := huge("\x00")
	spec := Spec{Prefix: mpp("fe80::/64"), Start: netip.MustParseAddr("fe80::5").WithZone(zone)}
	err := spec.Validate()
	if err == nil || len(err.Error()) > maxErrorPerField {
		t.Errorf("Validate() = %d bytes of error", len(err.Error()))
	}
}
