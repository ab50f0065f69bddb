package ipam

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go4.org/netipx"
)

// TestSpecTextValidationErrorsNameTheField (issue 21): an error that
// Spec.Validate finds once every field parsed is a *FieldError too, naming
// the field with its index and quoting its text as written, so an adapter
// can point its user at it. One case per rule.
func TestSpecTextValidationErrorsNameTheField(t *testing.T) {
	base := SpecText{CIDR: "10.50.0.0/17"}
	with := func(f func(*SpecText)) SpecText { t := base; f(&t); return t }
	tests := []struct {
		name         string
		text         SpecText
		field, value string
		why          string // in the error's reason
	}{
		{"start outside the prefix", with(func(t *SpecText) { t.Start = "10.50.200.1" }), "start", "10.50.200.1", "outside prefix 10.50.0.0/17"},
		{"start of the other family", with(func(t *SpecText) { t.Start = "fd00::1" }), "start", "fd00::1", "not of the family"},
		{"start is the network address", with(func(t *SpecText) { t.Start = "10.50.0.0" }), "start", "10.50.0.0", "not a usable address"},
		{"end is the broadcast address", with(func(t *SpecText) { t.End = "10.50.127.255" }), "end", "10.50.127.255", "not a usable address"},
		{"start after end", with(func(t *SpecText) { t.Start, t.End = "10.50.0.9", "10.50.0.5" }), "start", "10.50.0.9", `after end "10.50.0.5"`},
		{"exclude outside the prefix", with(func(t *SpecText) { t.Exclude = []string{"10.50.0.7", "10.50.0.0-10.50.255.255"} }), "exclude[1]", "10.50.0.0-10.50.255.255", "to 10.50.255.255: outside prefix"},
		{"exclude prefix outside", with(func(t *SpecText) { t.Exclude = []string{"10.51.0.0/24"} }), "exclude[0]", "10.51.0.0/24", "from 10.51.0.0: outside prefix"},
		{"exclude of the other family", with(func(t *SpecText) { t.Exclude = []string{"10.50.0.7", "10.50.0.8", "fd00::/64"} }), "exclude[2]", "fd00::/64", "not of the family"},
		{"IPv6 exclude outside", SpecText{CIDR: "fd00::/64", Exclude: []string{"fd00:0:0:1::/64"}}, "exclude[0]", "fd00:0:0:1::/64", "outside prefix fd00::/64"},
		{"IPv6 start is the anycast address", SpecText{CIDR: "fd00::/64", Start: "fd00::"}, "start", "fd00::", "not a usable address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.text.Parse()
			if !errors.Is(err, ErrInvalidSpec) {
				t.Fatalf("Parse() error = %v, want ErrInvalidSpec", err)
			}
			fes := FieldErrors(err)
			if len(fes) != 1 {
				t.Fatalf("Parse() error %v: %d FieldErrors, want 1", err, len(fes))
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("errors.As(%v, *FieldError) failed", err)
			}
			if diff := cmp.Diff(tt.field+"="+tt.value, fe.Field+"="+fe.Value); diff != "" {
				t.Errorf("field=value (-want +got):\n%s", diff)
			}
			if !strings.Contains(fe.Err.Error(), tt.why) {
				t.Errorf("reason %q does not say %q", fe.Err, tt.why)
			}
			want := "ipam: spec " + tt.field + ` "` + tt.value + `": `
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Parse() error = %q, want it to start %q", err, want)
			}
		})
	}
}

// TestAddressListErrorsQuoteTheValueAsWritten (issue 21): each FieldError
// of AddressList.Parse quotes the text of the field it names.
func TestAddressListErrorsQuoteTheValueAsWritten(t *testing.T) {
	l := AddressList{
		Addresses:         []string{"10.0.0.1", "10.0.1.1", "fd00::1", "10.0.0.9-10.0.0.1", "10.0.0.250-10.0.1.5"},
		Prefix:            24,
		Gateway:           "fd00::1",
		ExcludedAddresses: []string{"10.0.0.2", "x", "fd00::/64"},
	}
	value := func(field string) string {
		name, idx, _ := strings.Cut(strings.TrimSuffix(field, "]"), "[")
		switch name {
		case "addresses":
			return l.Addresses[atoi(idx)]
		case "excludedAddresses":
			return l.ExcludedAddresses[atoi(idx)]
		case "gateway":
			return l.Gateway
		}
		return "?"
	}
	for _, step := range []struct {
		l    AddressList
		want []string
	}{
		{l, []string{"addresses[2]", "addresses[3]", "gateway", "excludedAddresses[1]", "excludedAddresses[2]"}},
		// Once every field parses, the subnet rule.
		{AddressList{Addresses: []string{"10.0.0.1", "10.0.1.1", "10.0.0.250-10.0.1.5"}, Prefix: 24}, []string{"addresses[1]", "addresses[2]"}},
	} {
		l = step.l
		_, err := l.Parse()
		var got []string
		for _, fe := range FieldErrors(err) {
			got = append(got, fe.Field)
			if fe.Value != value(fe.Field) {
				t.Errorf("%s: Value %q, want %q as written", fe.Field, fe.Value, value(fe.Field))
			}
			if !strings.Contains(err.Error(), "ipam: spec "+fe.Field+` "`+fe.Value+`": `) {
				t.Errorf("error %q does not name %s %q", err, fe.Field, fe.Value)
			}
		}
		if diff := cmp.Diff(step.want, got); diff != "" {
			t.Errorf("fields (-want +got):\n%s", diff)
		}
	}
}

// TestSpecValidateNamesTheField: Spec.Validate's error is a *FieldError
// named as SpecText names the field, with the index in Exclude or
// Reserved, so New's error points at the value too.
func TestSpecValidateNamesTheField(t *testing.T) {
	spec := Spec{Prefix: mpp("10.0.0.0/24"), Exclude: []netipx.IPRange{rng("10.0.0.5", "10.0.0.6"), rng("10.0.1.0", "10.0.1.9")}}
	_, err := New(spec)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "exclude[1]" || fe.Value != "10.0.1.0-10.0.1.9" {
		t.Errorf("New() error = %v, want the FieldError of exclude[1]", err)
	}
}
