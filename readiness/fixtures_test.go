package readiness

// The MACs, renderings, checks and input copies that the tests of this
// package share; each test file keeps only what it alone uses. The models
// are in model_test.go.

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// MACs of the devices in the tests, as a Cluster API spec would give them.
const (
	mac0 = "52:54:00:12:34:56"
	mac1 = "52:54:00:12:34:57"
	mac2 = "52:54:00:12:34:58"
)

// render writes a Verdict as lines, every field included, so that a test
// states its whole expectation and a failure shows a readable diff.
//
//	ready=false reason=WaitingForNetworkAddresses
//	message: nic 0 (52:54:00:12:34:56): waiting for dhcp4
//	addresses: [192.0.2.10]
//	nic 0 52:54:00:12:34:56 Pending wait=dhcp4 match=MAC -169.254.1.1@hv(link-local)
//	nic 1 52:54:00:12:34:57 Satisfied match=MAC +192.0.2.10@hv
//	ignored: 10.9.9.9@node(ambiguous: several devices wait for this family)
//	problem: nic 1: MAC "zz": invalid MAC address
func render(v Verdict) []string {
	out := []string{fmt.Sprintf("ready=%t reason=%s", v.Ready, v.Reason)}
	if v.Message != "" {
		out = append(out, "message: "+v.Message)
	}
	out = append(out, fmt.Sprintf("addresses: %v", v.Addresses))
	for _, dv := range v.Devices {
		var b strings.Builder
		fmt.Fprintf(&b, "nic %d", dv.Index)
		if dv.MAC != "" {
			b.WriteString(" " + dv.MAC)
		}
		fmt.Fprintf(&b, " %s", dv.State)
		switch {
		case dv.WaitingDHCP4 && dv.WaitingDHCP6:
			b.WriteString(" wait=dhcp4+dhcp6")
		case dv.WaitingDHCP4:
			b.WriteString(" wait=dhcp4")
		case dv.WaitingDHCP6:
			b.WriteString(" wait=dhcp6")
		}
		fmt.Fprintf(&b, " match=%s", dv.Match)
		for _, c := range dv.Credited {
			fmt.Fprintf(&b, " +%s@%s", c.Addr, src(c.Source))
		}
		for _, ig := range dv.Ignored {
			fmt.Fprintf(&b, " -%s@%s(%s)", ig.Addr, src(ig.Source), ig.Why)
		}
		out = append(out, b.String())
	}
	for _, ig := range v.Ignored {
		out = append(out, fmt.Sprintf("ignored: %s@%s(%s)", ig.Addr, src(ig.Source), ig.Why))
	}
	for _, p := range v.Problems {
		out = append(out, "problem: "+p.Error())
	}
	return out
}

func src(s Source) string {
	if s == Node {
		return "node"
	}
	return "hv"
}

// checkVerdict compares the rendered verdict of in under p with want.
func checkVerdict(t *testing.T, in Input, p Policy, want []string) {
	t.Helper()
	if diff := cmp.Diff(want, render(Evaluate(in, p))); diff != "" {
		t.Errorf("Evaluate(%s) mismatch (-want +got):\n%s", p, diff)
	}
}

func cloneInput(in Input) Input {
	out := Input{
		Devices:   slices.Clone(in.Devices),
		NICs:      slices.Clone(in.NICs),
		NodeAddrs: slices.Clone(in.NodeAddrs),
		Ignore:    slices.Clone(in.Ignore),
	}
	for i := range out.Devices {
		out.Devices[i].Static = slices.Clone(out.Devices[i].Static)
	}
	for i := range out.NICs {
		out.NICs[i].Addrs = slices.Clone(out.NICs[i].Addrs)
	}
	return out
}

func equalInput(a, b Input) bool {
	return slices.EqualFunc(a.Devices, b.Devices, func(x, y Device) bool {
		return x.MAC == y.MAC && x.DHCP4 == y.DHCP4 && x.DHCP6 == y.DHCP6 && slices.Equal(x.Static, y.Static)
	}) && slices.EqualFunc(a.NICs, b.NICs, func(x, y NIC) bool {
		return x.MAC == y.MAC && slices.Equal(x.Addrs, y.Addrs)
	}) && slices.Equal(a.NodeAddrs, b.NodeAddrs) && slices.Equal(a.Ignore, b.Ignore)
}
