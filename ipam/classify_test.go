package ipam_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vmnetkit/vmnetkit/ipam"
)

// TestErrorClasses protects what adapters branch on: each sentinel, wrapped
// as the package wraps it, is in exactly one class, and an error that is not
// the core's is in none.
func TestErrorClasses(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{ipam.ErrExhausted, "exhausted"},
		{ipam.ErrInUse, "conflict"},
		{ipam.ErrOwnerHasAddr, "conflict"},
		{ipam.ErrNotAllocated, "conflict"},
		{ipam.ErrInvalidSpec, "input"},
		{ipam.ErrOutOfRange, "input"},
		{ipam.ErrExcluded, "input"},
		{ipam.ErrReserved, "input"},
		{ipam.ErrInvalidOwner, "input"},
		{ipam.ErrInvalidAddr, "input"},
		{ipam.ErrMarker, "input"},
		{errors.New("etcdserver: request timed out"), ""},
		{nil, ""},
	}
	for _, tt := range tests {
		name := "nil"
		if tt.err != nil {
			name = tt.err.Error()
		}
		t.Run(name, func(t *testing.T) {
			err := tt.err
			if err != nil {
				err = fmt.Errorf("ipam: allocate %q in 10.0.0.0/29: %w", "52:54:00:aa:bb:cc", tt.err)
			}
			var got []string
			if ipam.IsExhausted(err) {
				got = append(got, "exhausted")
			}
			if ipam.IsConflict(err) {
				got = append(got, "conflict")
			}
			if ipam.IsInputError(err) {
				got = append(got, "input")
			}
			var want []string
			if tt.want != "" {
				want = []string{tt.want}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("classes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOwnerKindCanonical(t *testing.T) {
	tests := []struct {
		name  string
		kind  ipam.OwnerKind
		owner string
		want  string // "" for an error wrapping ErrInvalidOwner
	}{
		{"MAC, colon form", ipam.MACOwners, "52:54:00:AA:BB:CC", "52:54:00:aa:bb:cc"},
		{"MAC, dash form", ipam.MACOwners, "52-54-00-aa-bb-cc", "52:54:00:aa:bb:cc"},
		{"MAC, dot form", ipam.MACOwners, "5254.00aa.bbcc", "52:54:00:aa:bb:cc"},
		{"8-byte EUI-64 is no NIC MAC", ipam.MACOwners, "02:00:5e:10:00:00:00:01", ""},
		{"20-byte InfiniBand address is no NIC MAC", ipam.MACOwners, "00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01", ""},
		{"empty", ipam.MACOwners, "", ""},
		{"a marker", ipam.AnyOwner, "EXCLUDED", ""},
		{"any owner kept as written", ipam.AnyOwner, "default/vm-1", "default/vm-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.kind.Canonical(tt.owner)
			if tt.want == "" {
				if !errors.Is(err, ipam.ErrInvalidOwner) || got != "" {
					t.Fatalf("Canonical(%q) = %q, %v; want ErrInvalidOwner", tt.owner, got, err)
				}
				if !strings.Contains(err.Error(), fmt.Sprintf("%q", tt.owner)) {
					t.Errorf("error %q does not quote the owner", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Canonical(%q) = %q, %v; want %q", tt.owner, got, err, tt.want)
			}
		})
	}
	long := strings.Repeat("x", 1<<20)
	if _, err := ipam.MACOwners.Canonical(long); err == nil || len(err.Error()) > 256 {
		t.Errorf("error of a 1 MiB owner: %d bytes", len(err.Error()))
	}
}
