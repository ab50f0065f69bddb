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
