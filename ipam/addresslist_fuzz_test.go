package ipam

import (
	"errors"
	"regexp"
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/netiptest"
)

// addressListFields are the field names AddressList.Parse may report.
var addressListFields = regexp.MustCompile(`^(addresses|addresses\[\d+\]|prefix|gateway|excludedAddresses\[\d+\])$`)

// FuzzAddressList parses an AddressList of fuzzed fields: an error wraps
// ErrInvalidSpec and names only AddressList's fields; a Spec is valid, and
// its pool never hands out the gateway, an excluded address or an address
// outside the listed ones.
func FuzzAddressList(f *testing.F) {
	f.Add("10.0.0.0/24", 24, "10.0.0.1", "10.0.0.10-10.0.0.19", false)
	f.Add("10.0.0.0/24", 24, "", "", true)
	f.Add("10.0.0.64/28,10.0.0.10-10.0.0.20,10.0.0.31", 24, "10.0.0.11", "10.0.0.70", false)
	f.Add("10.0.0.0", 24, "", "", false)
	f.Add("10.0.0.4/31", 31, "", "", false)
	f.Add("fd00:1::-fd00:1::1:86a0", 64, "fd00:1::1", "", false)
	f.Add("fd00:1::,fd00:1::5", 64, "", "", true)
	f.Add("::fffe:ffff:fffe-::1:0:0:1", 64, "", "", false)
	f.Add("10.0.0.1,fd00::1", 24, "x", "y", false)
	f.Add("10.0.0.5/24", 33, "fd00::1", "fd00::/64", false)
	f.Add("", -1, "", "", false)
	f.Add("::ffff:10.0.0.1", 120, "", "", false)
	f.Fuzz(func(t *testing.T, addresses string, prefix int, gateway, excluded string, allocateReserved bool) {
		list := AddressList{
			Addresses: netiptest.SplitList(addresses), Prefix: prefix, Gateway: gateway,
			ExcludedAddresses: netiptest.SplitList(excluded), AllocateReservedIPAddresses: allocateReserved,
		}
		spec, err := list.Parse()
		if err != nil {
			if !errors.Is(err, ErrInvalidSpec) {
				t.Fatalf("Parse(%+v) error %q does not wrap ErrInvalidSpec", list, err)
			}
			fes := FieldErrors(err)
			if len(fes) == 0 {
				t.Fatalf("Parse(%+v) error %q names no field", list, err)
			}
			for _, fe := range fes {
				if !addressListFields.MatchString(fe.Field) {
					t.Fatalf("Parse(%+v) names field %q", list, fe.Field)
				}
			}
			return
		}
		p, err := New(spec)
		if err != nil {
			t.Fatalf("New(Parse(%+v)) error: %v", list, err)
		}
		if gw, err := ParseAddr(gateway); err == nil && p.Check(gw) == nil {
			t.Fatalf("Parse(%+v): the gateway %s can be handed out", list, gw)
		}
		for _, s := range list.ExcludedAddresses {
			r, _ := ParseRange(s)
			for _, a := range []string{r.From().String(), r.To().String()} {
				if p.Check(mpa(a)) == nil {
					t.Fatalf("Parse(%+v): excluded %s can be handed out", list, a)
				}
			}
		}
		// The first and last addresses handed out are listed.
		if p.Stats().Free.IsZero() {
			return
		}
		for _, owner := range []string{"first", "second"} {
			a, err := p.Allocate(owner)
			if err != nil {
				t.Fatalf("Allocate(%q) from %+v: %v", owner, spec, err)
			}
			found := false
			for _, s := range list.Addresses {
				if r, _ := ParseRange(s); r.Contains(a) {
					found = true
				}
			}
			if !found {
				t.Fatalf("Parse(%+v): %s handed out, not listed", list, a)
			}
			if p.Stats().Free.IsZero() {
				break
			}
		}
	})
}
