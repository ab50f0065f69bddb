package readiness

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// An adapter that finds problems while parsing reports the same verdict
// Evaluate gives for the same invalid devices.
func TestInvalidVerdictIsEvaluatesVerdict(t *testing.T) {
	in := Input{Devices: []Device{
		{MAC: "52:54:00:00:00:01", DHCP4: true},
		{MAC: "52:54:00:00:00:01", DHCP4: true}, // a MAC twice
		{MAC: "not-a-mac", Static: []netip.Addr{netip.MustParseAddr("10.0.0.5")}},
	}}
	want := Evaluate(in, Strict)
	if want.Reason != ReasonInvalidNetworkSpec || len(want.Problems) == 0 {
		t.Fatalf("Evaluate = %+v, want an invalid verdict", want)
	}
	got := InvalidVerdict(want.Problems)
	if diff := cmp.Diff(want, got, cmpopts.EquateErrors(), cmpopts.EquateComparable(netip.Addr{})); diff != "" {
		t.Errorf("InvalidVerdict (-want +got):\n%s", diff)
	}
	if got.Ready || got.Message == "" {
		t.Errorf("InvalidVerdict = %+v: want not ready, with a message", got)
	}
}

// Problems come out sorted by device index, then text, whatever the order an
// adapter found them in, and the caller's slice is left alone.
func TestInvalidVerdictSortsProblems(t *testing.T) {
	in := []Problem{{Device: 1, Err: ErrInvalidMAC}, {Device: 0, Err: ErrInvalidStatic}}
	v := InvalidVerdict(in)
	if want := "nic 0: " + ErrInvalidStatic.Error() + "; nic 1: " + ErrInvalidMAC.Error(); v.Message != want {
		t.Errorf("Message = %q, want %q", v.Message, want)
	}
	if v.Problems[0].Device != 0 || in[0].Device != 1 {
		t.Errorf("Problems = %v (input now %v): want sorted, input unchanged", v.Problems, in)
	}
}
