package agent

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// lifecycleLease is the lease time of the lifecycle tests: short, so that
// renewal (T1, 1/2) and rebinding (T2, 7/8) come within seconds, and far
// enough apart (4s against 7s) to tell which one the client was in.
const lifecycleLease = 8 * time.Second

// lifecycleClient is a real DHCP client the lifecycle tests run for a
// while, through renewals, on a hook script that configures the
// interface as a distribution's script does (so that replies unicast to
// ciaddr arrive) and records each event.
type lifecycleClient struct {
	name string
	// args run the client on iface in the foreground, with script as its
	// hook script; dir is for its configuration, lease and PID files.
	args func(iface, script, dir string) []string
	// kind names a script event: "bound" (a new lease), "renew" (the same
	// lease renewed), "nak" (the client dropped its address on a NAK), or
	// "" for events the tests do not follow.
	kind func(event string) string
	// vars name the script variables of: address, mask, router, server
	// identifier, lease time, name servers, domain name, search list, NTP.
	vars [9]string
	// setup writes what args needs into dir.
	setup func(t *testing.T, dir string)
	// minLease is the shortest lease the client keeps: a shorter one is
	// raised to it, and its T1 and T2 follow. udhcpc 1.35 renews 15s after
	// binding an 8s lease (measured), so it keeps 30s.
	minLease time.Duration
	// lostNaks is how many NAKs to a renewal the client may miss before
	// it hears one: udhcpc misses the reply to its unicast renewal (see
	// TestNetnsLifecycle) and hears the one to its broadcast retry.
	lostNaks int
}

var lifecycleClients = []lifecycleClient{
	{
		name: "udhcpc",
		args: func(iface, script, dir string) []string {
			// -t 2 -T 1 -A 1: retry DISCOVER quickly after a NAK or a silence.
			return []string{"udhcpc", "-f", "-i", iface, "-s", script, "-t", "2", "-T", "1", "-A", "1"}
		},
		kind: func(ev string) string {
			switch ev {
			case "bound":
				return "bound"
			case "renew":
				return "renew"
			case "nak":
				return "nak"
			}
			return ""
		},
		vars:     [9]string{"ip", "subnet", "router", "serverid", "lease", "dns", "domain", "search", "ntpsrv"},
		minLease: 30 * time.Second,
		lostNaks: 1,
	},
	{
		name: "dhclient",
		args: func(iface, script, dir string) []string {
			return []string{"dhclient", "-4", "-d", "-v", "-cf", filepath.Join(dir, "dhclient.conf"), "-sf", script,
				"-lf", filepath.Join(dir, "leases"), "-pf", filepath.Join(dir, "pid"), iface}
		},
		kind: func(ev string) string {
			switch ev {
			case "BOUND", "REBOOT":
				return "bound"
			case "RENEW", "REBIND":
				return "renew"
			case "EXPIRE": // dhclient reports a NAK as EXPIRE: drop the old binding
				return "nak"
			}
			return ""
		},
		vars: [9]string{"new_ip_address", "new_subnet_mask", "new_routers", "new_dhcp_server_identifier",
			"new_dhcp_lease_time", "new_domain_name_servers", "new_domain_name", "new_domain_search", "new_ntp_servers"},
		setup: func(t *testing.T, dir string) {
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
	},
	{
		name: "dhcpcd",
		args: func(iface, script, dir string) []string {
			// -B: foreground; --noarp: no ARP probe of the offer (the
			// decline test wants it); dhcpcd configures the address itself.
			return []string{"dhcpcd", "-4", "-B", "-d", "--noarp", "-f", "/dev/null", "-c", script, iface}
		},
		kind: func(ev string) string {
			switch ev {
			case "BOUND", "REBOOT":
				return "bound"
			case "RENEW", "REBIND":
				return "renew"
			case "NAK":
				return "nak"
			}
			return ""
		},
		vars: [9]string{"new_ip_address", "new_subnet_mask", "new_routers", "new_dhcp_server_identifier",
			"new_dhcp_lease_time", "new_domain_name_servers", "new_domain_name", "new_domain_search", "new_ntp_servers"},
	},
}

// lifecycleScript is the clients' hook script: it configures the address
// of a lease and removes it when the lease ends, as the distributions'
// scripts do, and records each event with its environment in a file
// named by the time, so that the files sort in event order.
const lifecycleScript = `#!/bin/sh
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
