package dhcp6_test

import (
	"net/netip"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/probation"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// clientModel is one client, as the model sees it: the pool's lease of
// its MAC (none: the zero Addr), the address the server last bound to it,
// and the probation the server keeps as a caller of Decide does (a
// Declined address held, a Lifted one freed).
type clientModel struct {
	mac      [6]byte
	duid     []byte
	lease    netip.Addr
	bound    netip.Addr
	declined map[netip.Addr]time.Time // address -> end of its probation
	now      time.Time
	set      *probation.Set
	r        dhcp6.Reply
}

const period = time.Hour

func (c *clientModel) table(t *rapid.T) dhcp6.Table {
	var allocs []ipam.Allocation
	if c.lease.IsValid() {
		allocs = append(allocs, ipam.Allocation{Addr: c.lease, Owner: leasestore.MACFrom6(c.mac).String()})
	}
	// Another client, so that a table is never empty.
	allocs = append(allocs, ipam.Allocation{Addr: netip.MustParseAddr("2001:db8:30::ff"), Owner: "52:54:00:ff:ff:ff"})
	s, problems := leasestore.Build(ipam.Snapshot{Spec: ipam.Spec{Prefix: prefix}, Allocations: allocs}, testOptions)
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	tb := dhcp6.TableOf(s, serverID)
	tb.Probation, tb.Now = c.set, c.now
	return tb
}

func (c *clientModel) held(a netip.Addr) bool {
	end, ok := c.declined[a]
	return ok && c.now.Before(end)
}

// send decides m from the client, through the wire, and applies the
// decision as the server would.
func (c *clientModel) send(t *rapid.T, m dhcp6wire.Message) (dhcp6.Decision, *dhcp6wire.Message, error) {
	var req dhcp6wire.Packet
	if err := dhcp6wire.Decode(&req, dhcp6wire.AppendMessage(nil, &m)); err != nil {
		t.Fatal(err)
	}
	a := onLink(netip.MustParseAddr("fe80::1"), [6]byte{})
	if rapid.Bool().Draw(t, "frame instead of DUID") {
		req.Msg.ClientID = duidUUID
		a = onLink(netip.MustParseAddr("fe80::1"), c.mac)
	}
	d, err := dhcp6.Decide(&c.r, &req, a, c.table(t))
	if err != nil {
		return d, nil, err
	}
	var back dhcp6wire.Packet
	if err := dhcp6wire.Decode(&back, c.r.Append(nil)); err != nil {
		t.Fatal(err)
	}
	if d.Declined.IsValid() {
		c.set.Decline(leasestore.MACFrom6(c.mac), d.Declined, c.now)
		c.declined[d.Declined] = c.now.Add(period)
	}
	if d.Lifted {
		c.set.Lift(leasestore.MACFrom6(c.mac), d.Lease.Addr, c.now)
		delete(c.declined, d.Lease.Addr)
	}
	return d, &back.Msg, nil
}

// granted returns the addresses of the reply at non-zero valid lifetimes,
// and checks that each other address is at lifetimes 0.
func granted(t *rapid.T, m *dhcp6wire.Message) []netip.Addr {
	var out []netip.Addr
	for _, ia := range m.IANA {
		for _, a := range ia.Addrs {
			switch {
			case a.Valid != 0:
				out = append(out, a.Addr)
			case a.Preferred != 0:
				t.Fatalf("%s preferred %d with valid 0", a.Addr, a.Preferred)
			}
		}
	}
	return out
}

// TestClientMatchesModel: a client's random sequence of messages, while
// the pool moves, removes or restores its lease, time passes and the
// client declines: every reply grants exactly the lease's address when
// the model says it must, and nothing else.
func TestClientMatchesModel(t *testing.T) {
	addrs := []netip.Addr{netip.MustParseAddr("2001:db8:30::10"), netip.MustParseAddr("2001:db8:30::11"), {}}
	rapid.Check(t, func(t *rapid.T) {
		c := &clientModel{
			mac:      rapid.SampledFrom([][6]byte{macU, macL}).Draw(t, "mac"),
			declined: map[netip.Addr]time.Time{},
			now:      now,
			set:      probation.NewSet(period),
		}
		c.duid = llt(c.mac)
		c.lease = rapid.SampledFrom(addrs).Draw(t, "lease")
		request := func(typ dhcp6wire.MessageType, named ...netip.Addr) {
			var list []netip.Addr
			for _, a := range named {
				if a.IsValid() {
					list = append(list, a)
				}
			}
			namesLease := len(list) > 0 && list[0] == c.lease
			held := c.held(c.lease)
			d, reply, err := c.send(t, msg(typ, c.duid, list...))
			if typ == dhcp6wire.Rebind && !c.lease.IsValid() && len(list) == 0 {
				if err != dhcp6.ErrNothingToConfirm {
					t.Fatalf("REBIND naming nothing without a lease: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// A client that names an address on probation after its own
			// decline shows the decline was not its own: bound, lifted.
			wantBound := c.lease.IsValid() && (!held || namesLease)
			if d.Lifted != (wantBound && held) {
				t.Fatalf("%s: lifted %v, want %v", typ, d.Lifted, wantBound && held)
			}
			got := granted(t, reply)
			if wantBound {
				if !d.Bound || len(got) != 1 || got[0] != c.lease {
					t.Fatalf("%s: bound %v, granted %v; want %s", typ, d.Bound, got, c.lease)
				}
				c.bound = c.lease
			} else if d.Bound || len(got) != 0 {
				t.Fatalf("%s: bound %v, granted %v; want nothing (lease %s, held %v)", typ, d.Bound, got, c.lease, held)
			}
		}
		t.Repeat(map[string]func(*rapid.T){
			"solicit": func(t *rapid.T) {
				d, reply, err := c.send(t, msg(dhcp6wire.Solicit, c.duid))
				if err != nil {
					t.Fatal(err)
				}
				got := granted(t, reply)
				if c.lease.IsValid() && !c.held(c.lease) {
					if len(got) != 1 || got[0] != c.lease || d.Bound {
						t.Fatalf("SOLICIT: granted %v, want %s", got, c.lease)
					}
				} else if len(got) != 0 || reply.Status.Code != dhcp6wire.NoAddrsAvail {
					t.Fatalf("SOLICIT: granted %v status %v, want NoAddrsAvail", got, reply.Status)
				}
			},
			"request": func(t *rapid.T) { request(dhcp6wire.Request, c.bound) },
			"renew":   func(t *rapid.T) { request(dhcp6wire.Renew, c.bound) },
			"rebind":  func(t *rapid.T) { request(dhcp6wire.Rebind, c.bound) },
			"release": func(t *rapid.T) {
				d, _, err := c.send(t, msg(dhcp6wire.Release, c.duid, c.bound))
				if err != nil {
					t.Fatal(err)
				}
				if want := c.bound.IsValid() && c.bound == c.lease; d.Released.IsValid() != want {
					t.Fatalf("RELEASE of %s (lease %s): released %s", c.bound, c.lease, d.Released)
				}
				c.bound = netip.Addr{}
			},
			"decline": func(t *rapid.T) {
				d, _, err := c.send(t, msg(dhcp6wire.Decline, c.duid, c.bound))
				if err != nil {
					t.Fatal(err)
				}
				if want := c.bound.IsValid() && c.bound == c.lease; d.Declined.IsValid() != want {
					t.Fatalf("DECLINE of %s (lease %s): declined %s", c.bound, c.lease, d.Declined)
				}
				c.bound = netip.Addr{}
			},
			"pool moves the lease": func(t *rapid.T) { c.lease = rapid.SampledFrom(addrs).Draw(t, "lease") },
			"time passes": func(t *rapid.T) {
				c.now = c.now.Add(rapid.SampledFrom([]time.Duration{time.Minute, period}).Draw(t, "dt"))
			},
		})
	})
}
