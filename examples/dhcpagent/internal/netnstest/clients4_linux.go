package netnstest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
)

// Client4 is a real DHCPv4 client program the netns tests run, the two
// ways they run it, and the names under which its hook script sees each
// option.
type Client4 struct {
	Name    string
	Package string // the Debian package that installs it
	// Once runs the client on iface once, in the foreground, until it
	// has a lease (or, for dhcpcd, an OFFER: its test mode), with script
	// as its hook script; dir is for its lease and PID files.
	Once func(iface, script, dir string) []string
	// OnceBound reports whether a script environment of Once is that of
	// a lease (arg is the script's first argument).
	OnceBound func(env map[string]string, arg string) bool
	// OnceReads is the reply whose options Once's script sees: the ACK,
	// or the OFFER for a client in a test mode that stops there.
	OnceReads dhcpv4.MessageType
	// Run runs the client on iface in the foreground for as long as it
	// is left running, through renewals, with script as its hook script
	// (Script4); dir is for its configuration, lease and PID files.
	Run func(iface, script, dir string) []string
	// Kind names an event of Run's script: "bound" (a new lease),
	// "renew" (the same lease renewed), "nak" (the client dropped its
	// address on a NAK), or "" for events the tests do not follow.
	Kind func(event string) string
	// Vars name the script variables of: address, mask, router, server
	// identifier, lease time, name servers, domain name, search list, NTP.
	Vars [9]string
	// Setup writes what Run needs into dir; nil: nothing.
	Setup func(t testing.TB, dir string)
	// MinLease is the shortest lease the client keeps: a shorter one is
	// raised to it, and its T1 and T2 follow. udhcpc 1.35 renews 15s after
	// binding an 8s lease (measured), so it keeps 30s.
	MinLease time.Duration
	// LostNaks is how many NAKs to a renewal the client may miss before
	// it hears one: udhcpc misses the reply to its unicast renewal (its
	// socket bound to ciaddr:68 is closed at once) and hears the one to
	// its broadcast retry.
	LostNaks int
}

// The DHCPv4 clients, by name.
var (
	Udhcpc = Client4{
		Name: "udhcpc", Package: "udhcpc",
		Once: func(iface, script, dir string) []string {
			return []string{"udhcpc", "-f", "-q", "-n", "-i", iface, "-s", script, "-t", "10", "-T", "1", "-A", "1"}
		},
		OnceBound: func(_ map[string]string, arg string) bool { return arg == "bound" },
		OnceReads: dhcpv4.MessageTypeAck,
		Run: func(iface, script, dir string) []string {
			// -t 2 -T 1 -A 1: retry DISCOVER quickly after a NAK or a silence.
			return []string{"udhcpc", "-f", "-i", iface, "-s", script, "-t", "2", "-T", "1", "-A", "1"}
		},
		Kind: func(ev string) string {
			switch ev {
			case "bound", "renew", "nak":
				return ev
			}
			return ""
		},
		Vars:     [9]string{"ip", "subnet", "router", "serverid", "lease", "dns", "domain", "search", "ntpsrv"},
		MinLease: 30 * time.Second,
		LostNaks: 1,
	}
	Dhcpcd4 = Client4{
		Name: "dhcpcd", Package: "dhcpcd-base",
		Once: func(iface, script, dir string) []string {
			// -T: test mode, the script gets the OFFER and nothing is configured.
			return []string{"dhcpcd", "-4", "-T", "-f", "/dev/null", "-c", script, "-t", "20", iface}
		},
		OnceBound: func(env map[string]string, _ string) bool { return env["reason"] == "TEST" },
		OnceReads: dhcpv4.MessageTypeOffer,
		Run: func(iface, script, dir string) []string {
			// -B: foreground; --noarp: no ARP probe of the offer (the
			// decline test wants it); dhcpcd configures the address itself.
			return []string{"dhcpcd", "-4", "-B", "-d", "--noarp", "-f", "/dev/null", "-c", script, iface}
		},
		Kind: func(ev string) string { return iscKind(ev, "NAK") },
		Vars: iscVars,
	}
	Dhclient4 = Client4{
		Name: "dhclient", Package: "isc-dhcp-client",
		Once: func(iface, script, dir string) []string {
			return []string{"dhclient", "-4", "-1", "-d", "-sf", script,
				"-lf", filepath.Join(dir, "leases"), "-pf", filepath.Join(dir, "pid"), iface}
		},
		OnceBound: func(env map[string]string, _ string) bool {
			return env["reason"] == "BOUND" || env["reason"] == "REBOOT"
		},
		OnceReads: dhcpv4.MessageTypeAck,
		Run: func(iface, script, dir string) []string {
			return []string{"dhclient", "-4", "-d", "-v", "-cf", filepath.Join(dir, "dhclient.conf"), "-sf", script,
				"-lf", filepath.Join(dir, "leases"), "-pf", filepath.Join(dir, "pid"), iface}
		},
		// dhclient reports a NAK as EXPIRE: drop the old binding.
		Kind: func(ev string) string { return iscKind(ev, "EXPIRE") },
		Vars: iscVars,
		Setup: func(t testing.TB, dir string) {
			// Debian's request list, and retries within a second or two
			// instead of dhclient's minutes.
			conf := `request subnet-mask, broadcast-address, routers, domain-name, domain-name-servers,
	domain-search, ntp-servers, dhcp-lease-time, dhcp-renewal-time, dhcp-rebinding-time;
timeout 60;
retry 1;
initial-interval 1;
backoff-cutoff 2;
`
			if err := os.WriteFile(filepath.Join(dir, "dhclient.conf"), []byte(conf), 0o644); err != nil {
				t.Fatal(err)
			}
		},
	}
)

// iscKind is the kind of an ISC-style script reason (dhclient's and
// dhcpcd's): "bound", "renew", "nak" for the client's reason nak, or "".
func iscKind(ev, nak string) string {
	switch ev {
	case "BOUND", "REBOOT":
		return "bound"
	case "RENEW", "REBIND":
		return "renew"
	case nak:
		return "nak"
	}
	return ""
}

// iscVars are the script variables of ISC dhclient's and dhcpcd's
// scripts (dhcpcd took the names of dhclient-script's).
var iscVars = [9]string{"new_ip_address", "new_subnet_mask", "new_routers", "new_dhcp_server_identifier",
	"new_dhcp_lease_time", "new_domain_name_servers", "new_domain_name", "new_domain_search", "new_ntp_servers"}

// Script4 is the hook script of a client started with Run, with one %q
// verb for the folder it records events in: it configures the address
// of a lease and removes it when the lease ends, as the distributions'
// scripts do (so that replies unicast to ciaddr arrive), and records
// each event with its environment in a file named by the time, so that
// the files sort in event order.
const Script4 = `#!/bin/sh
ev="${reason:-$1}"
dev="${interface}"
case "$ev" in
bound|renew|BOUND|RENEW|REBIND|REBOOT)
	a="${ip:-$new_ip_address}"; m="${mask:-$new_subnet_mask}"
	if ! ip -4 addr show dev "$dev" | grep -q " $a/"; then
		ip addr flush dev "$dev"; ip addr add "$a/$m" dev "$dev"
	fi ;;
deconfig|nak|EXPIRE|FAIL|RELEASE|STOP|PREINIT)
	ip addr flush dev "$dev"; ip link set "$dev" up ;;
esac
f=%[1]q/ev.$(date +%%s%%N).$$
{ echo "EVENT=$ev"; env; } > "$f.tmp" && mv "$f.tmp" "$f"
exit 0
`

// Clients4 are the three DHCPv4 clients: busybox udhcpc, dhcpcd, ISC
// dhclient, in that order.
var Clients4 = []Client4{Udhcpc, Dhcpcd4, Dhclient4}
