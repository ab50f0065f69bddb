package readiness

import (
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/vmnetkit/vmnetkit/internal/netiptest"
)

var (
	propMACs = []string{mac0, mac1, mac2, "52:54:00:12:34:59"}
	// usablePool mixes plain, IPv4-mapped and zoned forms, static
	// addresses of the generated devices, and addresses inside the
	// ignorable prefixes.
	usablePool = netiptest.Addrs("10.0.0.5", "10.0.0.6", "10.1.0.5", "2001:db8::5", "2001:db8:1::5",
		"192.0.2.10", "192.0.2.11", "2001:db8:5::10", "10.9.9.9", "2001:db8:99::9", "::ffff:10.0.0.5", "2001:db8::5%eth0", "240.255.0.1")
	unusablePool = netiptest.Addrs("", "169.254.1.1", "fe80::1", "fe80::1%eth0", "127.0.0.1", "::1", "0.0.0.0", "::",
		"224.0.0.1", "ff02::1", "::ffff:127.0.0.1", "::ffff:169.254.9.9",
		"255.255.255.255", "::ffff:255.255.255.255", "0.1.2.3")
	static4Pool = netiptest.Addrs("192.0.2.10", "192.0.2.11", "10.0.0.5")
	static6Pool = netiptest.Addrs("2001:db8:5::10", "2001:db8::5")
	// ignoreOptions and, for each, addresses the option makes unusable.
	ignoreOptions = []struct {
		prefixes []netip.Prefix
		inside   []netip.Addr
	}{
		{nil, nil},
		{netiptest.Prefixes("10.9.9.0/24"), netiptest.Addrs("10.9.9.9", "10.9.9.1")},
		{netiptest.Prefixes("10.9.9.0/24", "2001:db8:99::/48"), netiptest.Addrs("10.9.9.9", "2001:db8:99::9")},
		{netiptest.Prefixes("::ffff:10.9.9.0/120"), netiptest.Addrs("10.9.9.9", "::ffff:10.9.9.1")},
	}
)

// macForms writes a MAC in another accepted form.
func macForms(t *rapid.T, m string, label string) string {
	switch rapid.IntRange(0, 3).Draw(t, label) {
	case 1:
		return strings.ToUpper(m)
	case 2:
		return strings.ReplaceAll(m, ":", "-")
	case 3:
		h := strings.ReplaceAll(m, ":", "")
		return h[0:4] + "." + h[4:8] + "." + h[8:12]
	}
	return m
}

// readinessMachine grows an Input one observation at a time and checks the
// properties after each step.
type readinessMachine struct {
	in     Input
	ignore int // index into ignoreOptions
}

func (m *readinessMachine) addDevice(t *rapid.T) {
	if len(m.in.Devices) >= 5 {
		t.Skip("enough devices")
	}
	i := len(m.in.Devices)
	var d Device
	switch rapid.IntRange(0, 5).Draw(t, "deviceMAC") {
	case 0:
	case 1: // rarely a MAC another device may have
		d.MAC = rapid.SampledFrom(propMACs).Draw(t, "anyMAC")
	default:
		d.MAC = propMACs[i%len(propMACs)]
	}
	d.DHCP4 = rapid.Bool().Draw(t, "dhcp4")
	d.DHCP6 = rapid.IntRange(0, 2).Draw(t, "dhcp6") == 0
	if !d.DHCP4 && rapid.Bool().Draw(t, "static4") {
		d.Static = append(d.Static, rapid.SampledFrom(static4Pool).Draw(t, "s4"))
	}
	if !d.DHCP6 && rapid.IntRange(0, 2).Draw(t, "static6") == 0 {
		d.Static = append(d.Static, rapid.SampledFrom(static6Pool).Draw(t, "s6"))
	}
	m.in.Devices = append(m.in.Devices, d)
}

func (m *readinessMachine) addNIC(t *rapid.T) {
	if len(m.in.NICs) >= 6 {
		t.Skip("enough NICs")
	}
	var n NIC
	switch rapid.IntRange(0, 5).Draw(t, "nicMAC") {
	case 0:
	case 1:
		n.MAC = rapid.SampledFrom([]string{"02:42:ac:11:00:01", "zz:zz:zz:zz:zz:zz", "garbage"}).Draw(t, "foreignMAC")
	default:
		n.MAC = macForms(t, rapid.SampledFrom(propMACs).Draw(t, "mac"), "macForm")
	}
	n.Addrs = rapid.SliceOfN(rapid.SampledFrom(usablePool), 0, 2).Draw(t, "addrs")
	m.in.NICs = append(m.in.NICs, n)
}

func (m *readinessMachine) addAddr(t *rapid.T) {
	if len(m.in.NICs) == 0 {
		t.Skip("no NIC")
	}
	j := rapid.IntRange(0, len(m.in.NICs)-1).Draw(t, "nic")
	a := rapid.SampledFrom(usablePool).Draw(t, "addr")
	m.in.NICs[j].Addrs = append(slices.Clone(m.in.NICs[j].Addrs), a)
}

func (m *readinessMachine) addNodeAddr(t *rapid.T) {
	if len(m.in.NodeAddrs) >= 4 {
		t.Skip("enough Node addresses")
	}
	pool := append(slices.Clone(usablePool), unusablePool...)
	m.in.NodeAddrs = append(m.in.NodeAddrs, rapid.SampledFrom(pool).Draw(t, "nodeAddr"))
}

func (m *readinessMachine) setIgnore(t *rapid.T) {
	m.ignore = rapid.IntRange(0, len(ignoreOptions)-1).Draw(t, "ignore")
	m.in.Ignore = ignoreOptions[m.ignore].prefixes
}

// Adding an unusable address to any NIC never changes the verdict (the
// lists of ignored addresses aside, which exist to show it). Under Counting
// only the invalid address is unusable.
func (m *readinessMachine) addUnusable(t *rapid.T) {
	if len(m.in.NICs) == 0 {
		t.Skip("no NIC")
	}
	j := rapid.IntRange(0, len(m.in.NICs)-1).Draw(t, "nic")
	pool := append(slices.Clone(unusablePool), ignoreOptions[m.ignore].inside...)
	a := rapid.SampledFrom(pool).Draw(t, "unusable")
	at := rapid.IntRange(0, len(m.in.NICs[j].Addrs)).Draw(t, "at")

	before := m.in
	after := m.in
	after.NICs = slices.Clone(m.in.NICs)
	after.NICs[j].Addrs = slices.Insert(slices.Clone(m.in.NICs[j].Addrs), at, a)

	if diff := cmp.Diff(withoutIgnored(Evaluate(before, Strict)), withoutIgnored(Evaluate(after, Strict))); diff != "" {
		t.Fatalf("Strict verdict changed by adding %v to NIC %d (-before +after):\n%s", a, j, diff)
	}
	if !a.IsValid() {
		if diff := cmp.Diff(withoutIgnored(Evaluate(before, Counting)), withoutIgnored(Evaluate(after, Counting))); diff != "" {
			t.Fatalf("Counting verdict changed by adding an invalid address (-before +after):\n%s", diff)
		}
	}
	m.in = after
}

// Reordering the NICs that carry a device's MAC never changes the verdict.
// Under Counting the Addresses follow the NIC order by design (the legacy
// order); they are compared as a set.
func (m *readinessMachine) reorder(t *rapid.T) {
	var pos []int
	for j, n := range m.in.NICs {
		nk := keyOf(n.MAC)
		for _, d := range m.in.Devices {
			if dk := keyOf(d.MAC); nk.valid && dk.valid && nk.mac == dk.mac {
				pos = append(pos, j)
				break
			}
		}
	}
	if len(pos) < 2 {
		t.Skip("fewer than two NICs carry a device's MAC")
	}
	perm := rapid.Permutation(pos).Draw(t, "perm")
	after := m.in
	after.NICs = slices.Clone(m.in.NICs)
	for k, j := range pos {
		after.NICs[j] = m.in.NICs[perm[k]]
	}
	if diff := cmp.Diff(render(Evaluate(m.in, Strict)), render(Evaluate(after, Strict))); diff != "" {
		t.Fatalf("Strict verdict changed by reordering NICs %v as %v (-before +after):\n%s", pos, perm, diff)
	}
	if diff := cmp.Diff(countingSet(Evaluate(m.in, Counting)), countingSet(Evaluate(after, Counting))); diff != "" {
		t.Fatalf("Counting verdict changed by reordering NICs %v as %v (-before +after):\n%s", pos, perm, diff)
	}
	m.in = after
}

// check holds after every step.
func (m *readinessMachine) check(t *rapid.T) {
	snapshot := cloneInput(m.in)
	for _, p := range []Policy{Strict, Counting} {
		v := Evaluate(m.in, p)
		if first, again := render(v), render(Evaluate(m.in, p)); !slices.Equal(first, again) {
			t.Fatalf("%s: not deterministic (-first +again):\n%s", p, cmp.Diff(first, again))
		}
		switch {
		case v.Ready && (v.Reason != "" || v.Message != ""):
			t.Fatalf("%s: ready with Reason %q Message %q", p, v.Reason, v.Message)
		case !v.Ready && (v.Message == "" || v.Reason != ReasonWaitingForNetworkAddresses && v.Reason != ReasonInvalidNetworkSpec):
			t.Fatalf("%s: not ready with Reason %q Message %q", p, v.Reason, v.Message)
		case (v.Reason == ReasonInvalidNetworkSpec) != (len(v.Problems) > 0):
			t.Fatalf("%s: Reason %q with %d problems", p, v.Reason, len(v.Problems))
		case v.Reason != ReasonInvalidNetworkSpec && len(v.Devices) != len(m.in.Devices):
			t.Fatalf("%s: %d device verdicts for %d devices", p, len(v.Devices), len(m.in.Devices))
		}
	}
	strict, counting := Evaluate(m.in, Strict), Evaluate(m.in, Counting)
	if want := modelStrictReady(m.in); strict.Ready != want {
		t.Fatalf("Strict Ready = %t, model says %t\n%s", strict.Ready, want, strings.Join(render(strict), "\n"))
	}
	if want := modelCountingReady(m.in); counting.Ready != want {
		t.Fatalf("Counting Ready = %t, model says %t", counting.Ready, want)
	}
	// Under Strict, Ready implies every DHCP device has a credited,
	// usable address of each family it asks for.
	if strict.Ready {
		for i, d := range m.in.Devices {
			for _, want4 := range []bool{true, false} {
				if want4 && !d.DHCP4 || !want4 && !d.DHCP6 {
					continue
				}
				found := false
				for _, c := range strict.Devices[i].Credited {
					_, usable := classify(c.Addr, m.in.Ignore)
					found = found || c.Addr.Is4() == want4 && usable
				}
				if !found {
					t.Fatalf("Strict ready but device %d has no credited address for DHCP4=%t\n%s", i, want4, strings.Join(render(strict), "\n"))
				}
			}
		}
	}
	if !equalInput(m.in, snapshot) {
		t.Fatalf("Evaluate modified its input")
	}
}

func withoutIgnored(v Verdict) []string {
	v.Ignored = nil
	for i := range v.Devices {
		v.Devices[i].Ignored = nil
	}
	return render(v)
}

func countingSet(v Verdict) []string {
	v.Addresses = slices.Clone(v.Addresses)
	slices.SortFunc(v.Addresses, netip.Addr.Compare)
	return render(v)
}

func TestEvaluateProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := &readinessMachine{}
		t.Repeat(map[string]func(*rapid.T){
			"addDevice":   m.addDevice,
			"addNIC":      m.addNIC,
			"addAddr":     m.addAddr,
			"addNodeAddr": m.addNodeAddr,
			"setIgnore":   m.setIgnore,
			"addUnusable": m.addUnusable,
			"reorder":     m.reorder,
			"":            m.check,
		})
	})
}
