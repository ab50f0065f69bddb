package controller

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
)

func TestPlanClaim(t *testing.T) {
	const mac0, mac1 = "52:54:00:00:00:01", "52:54:00:00:00:02"
	addr := netip.MustParseAddr
	ok := func(mac, a string) nicOutcome { return nicOutcome{Pool: "net", MAC: mac, Addr: addr(a)} }
	failed := func(mac string, err error) nicOutcome { return nicOutcome{Pool: "net", MAC: mac, Err: err} }
	held := &v1alpha1.NICStatus{MAC: mac1, Pool: "net", Address: "10.0.0.9"}
	exhausted := fmt.Errorf("ipam: allocate %q in 10.0.0.0/29: %w", mac1, ipam.ErrExhausted)
	notReady := fmt.Errorf("pool net: %w", errPoolNotReady)
	limited := fmt.Errorf("pool net: %w", errCapacityLimited)
	dual := func(mac, a, a6 string) nicOutcome {
		return nicOutcome{Pool: "net", MAC: mac, Addr: addr(a), Addr6: addr(a6)}
	}
	only4 := func(mac, a string, err6 error) nicOutcome {
		return nicOutcome{Pool: "net", MAC: mac, Addr: addr(a), Err6: err6}
	}
	exhausted6 := fmt.Errorf("IPv6 part of pool ns/net: ipam: allocate %q in fd00::/126: %w", mac1, ipam.ErrExhausted)
	limited6 := fmt.Errorf("IPv6 part of pool ns/net has handed out 2 of at most 2 addresses: %w", errCapacityLimited)
	inUse6 := fmt.Errorf("IPv6 part of pool ns/net: ipam: allocate %q at fd00::5: %w", mac1, ipam.ErrInUse)
	badMAC := outcomeError{errInvalidNIC, errors.New(`nic "zz": not a MAC`)}
	dup := outcomeError{errDuplicateMAC, errors.New("nic 52:54:00:00:00:02 on pool net: claim vm-a has it")}
	type want struct {
		nics  []string
		ready string // Status/Reason: Message
		wait  bool
		event string
	}
	tests := []struct {
		name       string
		prevReason string
		outcomes   []nicOutcome
		want       want
	}{
		{"every NIC has its address", "", []nicOutcome{ok(mac0, "10.0.0.2"), ok(mac1, "10.0.0.3")},
			want{[]string{mac0 + "=10.0.0.2", mac1 + "=10.0.0.3"}, "True/Allocated: 2 NICs have their address", false, ""}},
		{"an invalid NIC fails the claim without a retry", "", []nicOutcome{ok(mac0, "10.0.0.2"), failed("zz", badMAC)},
			want{[]string{mac0 + "=10.0.0.2"}, `False/InvalidNIC: nic "zz": not a MAC`, false, ""}},
		{"a duplicate MAC waits for the other claim", "", []nicOutcome{failed(mac1, dup)},
			want{nil, "False/DuplicateMAC: nic 52:54:00:00:00:02 on pool net: claim vm-a has it", true, ""}},
		{"exhausted waits with AllocationFailed", "", []nicOutcome{failed(mac1, exhausted)},
			want{nil, `False/AllocationFailed: ipam: allocate "52:54:00:00:00:02" in 10.0.0.0/29: pool exhausted`, true, ""}},
		{"a pool not ready keeps the address the status had", "", []nicOutcome{ok(mac0, "10.0.0.2"), {Pool: "net", MAC: mac1, Held: held, Err: notReady}},
			want{[]string{mac0 + "=10.0.0.2", mac1 + "=10.0.0.9"}, "True/Allocated: 2 NICs have their address", true, ""}},
		{"a pool not ready with nothing held fails the claim", "", []nicOutcome{failed(mac1, notReady)},
			want{nil, "False/PoolNotReady: pool net: pool not ready in this process", true, ""}},
		{"a NIC that left the spec, not released yet, is kept and fails the claim", "", []nicOutcome{{Pool: "net", MAC: mac1, Held: held, Left: true, Err: notReady}, ok(mac0, "10.0.0.2")},
			want{[]string{mac1 + "=10.0.0.9", mac0 + "=10.0.0.2"}, "False/PoolNotReady: pool net: pool not ready in this process", true, ""}},
		{"capacity limited posts its Event once", "", []nicOutcome{failed(mac0, limited), failed(mac1, limited)},
			want{nil, "False/CapacityLimited: pool net: pool at its allocation limit", true, "CapacityLimited nic 52:54:00:00:00:01: pool net: pool at its allocation limit"}},
		{"capacity limited again: no second Event", ReasonCapacityLimited, []nicOutcome{failed(mac0, limited)},
			want{nil, "False/CapacityLimited: pool net: pool at its allocation limit", true, ""}},
		{"dual stack: every NIC has both addresses", "", []nicOutcome{dual(mac0, "10.0.0.2", "fd00::2"), dual(mac1, "10.0.0.3", "fd00::3")},
			want{[]string{mac0 + "=10.0.0.2,fd00::2", mac1 + "=10.0.0.3,fd00::3"}, "True/Allocated: 2 NICs have their address", false, ""}},
		{"IPv6 exhausted: the NIC keeps its IPv4 address, the claim says IPv6Exhausted, one Event", "",
			[]nicOutcome{dual(mac0, "10.0.0.2", "fd00::2"), only4(mac1, "10.0.0.3", exhausted6)},
			want{[]string{mac0 + "=10.0.0.2,fd00::2", mac1 + "=10.0.0.3"},
				`False/IPv6Exhausted: nic 52:54:00:00:00:02 has its IPv4 address 10.0.0.3 but no IPv6 address: IPv6 part of pool ns/net: ipam: allocate "52:54:00:00:00:02" in fd00::/126: pool exhausted`, true,
				`IPv6Exhausted nic 52:54:00:00:00:02: no IPv6 address (it keeps its IPv4 address 10.0.0.3): IPv6 part of pool ns/net: ipam: allocate "52:54:00:00:00:02" in fd00::/126: pool exhausted`}},
		{"IPv6 exhausted again: no second Event", ReasonIPv6Exhausted, []nicOutcome{only4(mac1, "10.0.0.3", exhausted6)},
			want{[]string{mac1 + "=10.0.0.3"},
				`False/IPv6Exhausted: nic 52:54:00:00:00:02 has its IPv4 address 10.0.0.3 but no IPv6 address: IPv6 part of pool ns/net: ipam: allocate "52:54:00:00:00:02" in fd00::/126: pool exhausted`, true, ""}},
		{"IPv6 at the limit: IPv6CapacityLimited with its Event", ReasonIPv6Exhausted, []nicOutcome{only4(mac1, "10.0.0.3", limited6)},
			want{[]string{mac1 + "=10.0.0.3"},
				"False/IPv6CapacityLimited: nic 52:54:00:00:00:02 has its IPv4 address 10.0.0.3 but no IPv6 address: IPv6 part of pool ns/net has handed out 2 of at most 2 addresses: pool at its allocation limit", true,
				"IPv6CapacityLimited nic 52:54:00:00:00:02: no IPv6 address (it keeps its IPv4 address 10.0.0.3): IPv6 part of pool ns/net has handed out 2 of at most 2 addresses: pool at its allocation limit"}},
		{"IPv6 requested address in use: IPv6AllocationFailed, no Event", "", []nicOutcome{only4(mac1, "10.0.0.3", inUse6)},
			want{[]string{mac1 + "=10.0.0.3"},
				`False/IPv6AllocationFailed: nic 52:54:00:00:00:02 has its IPv4 address 10.0.0.3 but no IPv6 address: IPv6 part of pool ns/net: ipam: allocate "52:54:00:00:00:02" at fd00::5: address in use`, true, ""}},
		{"an IPv4 failure before an IPv6 one gives the reason", "", []nicOutcome{failed(mac0, limited), only4(mac1, "10.0.0.3", exhausted6)},
			want{[]string{mac1 + "=10.0.0.3"}, "False/CapacityLimited: pool net: pool at its allocation limit", true,
				"CapacityLimited nic 52:54:00:00:00:01: pool net: pool at its allocation limit"}},
		{"the first failure gives the reason", "", []nicOutcome{failed(mac0, exhausted), failed("zz", badMAC)},
			want{nil, `False/AllocationFailed: ipam: allocate "52:54:00:00:00:02" in 10.0.0.0/29: pool exhausted`, true, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := planClaim(7, tt.prevReason, tt.outcomes)
			var nics []string
			for _, n := range p.NICs {
				s := n.MAC + "=" + n.Address
				if n.IPv6Address != "" {
					s += "," + n.IPv6Address
				}
				nics = append(nics, s)
			}
			got := want{nics, fmt.Sprintf("%s/%s: %s", p.Ready.Status, p.Ready.Reason, p.Ready.Message), p.Wait, ""}
			if p.Event != "" {
				got.event = p.Event + " " + p.EventMessage
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("planClaim (-want +got):\n%s", diff)
			}
			if p.Ready.ObservedGeneration != 7 || p.Ready.Type != v1alpha1.ReadyType {
				t.Errorf("Ready = %+v, want type %s for generation 7", p.Ready, v1alpha1.ReadyType)
			}
			set, _ := conditions.Set(nil, p.Ready, time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)) // as the writer does
			if err := conditions.Validate(set[0]); err != nil {
				t.Errorf("Ready is not a valid condition: %v", err)
			}
		})
	}
}
