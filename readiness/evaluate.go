package readiness

import (
	"cmp"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Evaluate decides whether the VM's network is ready under policy p. It is
// pure and deterministic: the same Input gives the same Verdict, whatever the
// map order; it never panics, whatever the Input. Any Policy other than
// Counting is evaluated as Strict, the safe one. Evaluate does not modify in.
func Evaluate(in Input, p Policy) Verdict {
	if p == Counting {
		return evaluateCounting(in)
	}
	return evaluateStrict(in)
}

// InvalidVerdict is the verdict for a spec whose devices do not parse (an
// adapter's parse step, such as ParseDevice per device, found problems
// before there was an Input to evaluate): never ready, Reason
// ReasonInvalidNetworkSpec, the problems in Problems and, joined by "; ",
// in Message, exactly as Evaluate reports an invalid Input: sorted by
// device index, then text. problems is not modified.
func InvalidVerdict(problems []Problem) Verdict {
	problems = slices.Clone(problems)
	slices.SortStableFunc(problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Device, b.Device), cmp.Compare(a.Error(), b.Error()))
	})
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.Error()
	}
	return Verdict{
		Reason:   ReasonInvalidNetworkSpec,
		Message:  strings.Join(msgs, "; "),
		Problems: problems,
	}
}

// finish sorts the per-device and verdict-level lists and sets Reason and
// Message from the pending items.
func (v *Verdict) finish(items []string) {
	for i := range v.Devices {
		v.Devices[i].Credited = sortCredited(v.Devices[i].Credited)
		v.Devices[i].Ignored = sortIgnored(v.Devices[i].Ignored)
	}
	v.Ignored = sortIgnored(v.Ignored)
	if v.Ready {
		return
	}
	v.Reason = ReasonWaitingForNetworkAddresses
	v.Message = strings.Join(items, "; ")
}

func sortCredited(c []CreditedAddr) []CreditedAddr {
	slices.SortFunc(c, func(a, b CreditedAddr) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), a.Addr.Compare(b.Addr))
	})
	return slices.Compact(c)
}

func sortIgnored(ig []IgnoredAddr) []IgnoredAddr {
	slices.SortFunc(ig, func(a, b IgnoredAddr) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), a.Addr.Compare(b.Addr), cmp.Compare(a.Why, b.Why))
	})
	return slices.Compact(ig)
}

// deviceLabel names a device in messages: "nic 0 (52:54:00:12:34:56)", or
// "nic 0" without a MAC.
func deviceLabel(dv DeviceVerdict) string {
	var b strings.Builder
	b.WriteString("nic ")
	b.WriteString(strconv.Itoa(dv.Index))
	if dv.MAC != "" {
		b.WriteString(" (")
		b.WriteString(dv.MAC)
		b.WriteString(")")
	}
	return b.String()
}

// waitingItem is a pending device's message item.
func waitingItem(dv DeviceVerdict) string {
	var what string
	switch {
	case dv.WaitingDHCP4 && dv.WaitingDHCP6:
		what = "dhcp4 and dhcp6"
	case dv.WaitingDHCP4:
		what = "dhcp4"
	default:
		what = "dhcp6"
	}
	return deviceLabel(dv) + ": waiting for " + what
}

// addrList collects addresses once each, in first-seen order.
type addrList struct {
	seen  map[netip.Addr]bool
	addrs []netip.Addr
}

func (l *addrList) add(a netip.Addr) {
	if l.seen == nil {
		l.seen = map[netip.Addr]bool{}
	}
	if !l.seen[a] {
		l.seen[a] = true
		l.addrs = append(l.addrs, a)
	}
}
