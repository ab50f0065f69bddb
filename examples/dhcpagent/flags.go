package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/probation"
	"github.com/vmnetkit/vmnetkit/examples/internal/command"
)

// config is the parsed command line.
type config struct {
	*command.Flags           // -kubeconfig, -metrics-bind-address, -health-probe-bind-address
	pool, ippool             string
	namespace, name          string
	iface                    string
	listen                   *net.UDPAddr
	listen6                  netip.AddrPort
	duid                     []byte         // -duid; nil: the pool's (poolDUID)
	relays6                  []netip.Prefix // -relays6
	serverIP                 string         // -server-ip: "", "iface" or an IPv4 address
	peers4                   []netip.Prefix // -peers4
	stateDir                 string
	stateWait                time.Duration
	poll, probation, summary time.Duration
	rcvbuf                   int
	cpuProfile               string
	logger                   logr.Logger
}

func parse(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("dhcpagent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: dhcpagent (-pool file | -ippool namespace/name [-kubeconfig file]) [flags]\n\n"+
			"Serves the DHCPv4 leases of one vmnetkit IPPool. Flags:\n")
		fs.PrintDefaults()
	}
	c := &config{Flags: &command.Flags{}}
	fs.StringVar(&c.pool, "pool", "", "read the IPPool from this JSON `file` (kubectl get ippool NAME -o json), reloaded as soon as it changes")
	fs.StringVar(&c.ippool, "ippool", "", "watch this IPPool (`namespace/name`) in the API server instead of reading a file")
	c.AddKubeconfig(fs)
	fs.StringVar(&c.iface, "iface", "", "serve only this network `interface` (SO_BINDTODEVICE); empty: every interface")
	listen := fs.String("listen", "0.0.0.0:67", "the UDP `address` to listen on")
	listen6 := fs.String("listen6", "[::]:547", "the UDP `address` to listen on for DHCPv6 (relayed messages and their replies), when the pool has an IPv6 part (spec.ipv6); clients' multicasts to ff02::1:2 are read on -iface with a packet socket and answered through it")
	relays6 := fs.String("relays6", "", "the DHCPv6 relay agents to answer: a comma-separated list of IPv6 `addresses or prefixes` (2001:db8::1,fd00:1::/64); a RELAY-FORW from any other source is dropped, since a relay's options choose the client's lease. Empty: none")
	fs.StringVar(&c.serverIP, "server-ip", "", "this agent's DHCPv4 server identifier, in place of the pool's serverIP: an IPv4 `address`, or iface for -iface's own IPv4 address; set it on each of two agents serving one pool (two hosts cannot share an address, and clients renew with the one they were given)")
	peers4 := fs.String("peers4", "", "the other agents serving the same pool, by their DHCPv4 server identifiers: a comma-separated list of IPv4 `addresses or prefixes` (10.20.0.3,10.20.0.2/31; a prefix may hold this agent's own); a REQUEST selecting a peer's offer is left to it and noted as a binding, and a DECLINE or RELEASE naming one is checked as if it named this agent. Empty: none")
	duid := fs.String("duid", "", "the DHCPv6 server `DUID` in hex (00:04:...); empty: a DUID-UUID named after the pool's namespace/name, the same across restarts and replicas")
	fs.StringVar(&c.stateDir, "state-dir", "", "with -ippool: keep the last pool version loaded from the API server in this `folder` (written atomically, checked on read), and serve it at a start when the API server does not answer within -state-wait; empty: none")
	fs.DurationVar(&c.stateWait, "state-wait", 10*time.Second, "with -state-dir: how long a start waits for the API server before it serves the last-good copy")
	fs.DurationVar(&c.poll, "poll", 30*time.Second, "with -pool: also check the file this often, a fallback for file systems that send no inotify events")
	fs.DurationVar(&c.probation, "probation", probation.DefaultPeriod, "how long an address a client declined (DHCPDECLINE: another host uses it) is not offered again; 0: not held back")
	fs.DurationVar(&c.summary, "summary", time.Minute, "log a summary of the traffic this often; 0: never")
	fs.IntVar(&c.rcvbuf, "rcvbuf", 4<<20, "the socket receive buffer to ask for, in `bytes` (SO_RCVBUF, so that bursts wait rather than drop); 0: the kernel's default")
	c.AddMetrics(fs, false)
	c.AddProbes(fs, "a lease table is loaded from the pool and the serve loop runs; /healthz: the serve loop is not stuck")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a Go CPU profile (runtime/pprof) of the whole run to this `file`, for performance work; empty: none")
	logging := command.AddLoggingFlags(fs, stderr)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	switch {
	case c.pool == "" && c.ippool == "":
		return nil, errors.New("-pool or -ippool is required")
	case c.pool != "" && c.ippool != "":
		return nil, errors.New("-pool and -ippool exclude each other")
	case c.Kubeconfig != "" && c.ippool == "":
		return nil, errors.New("-kubeconfig needs -ippool")
	case c.stateDir != "" && c.ippool == "":
		return nil, errors.New("-state-dir needs -ippool (with -pool, the file is the copy)")
	}
	if c.ippool != "" {
		ns, name, ok := strings.Cut(c.ippool, "/")
		if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
			return nil, fmt.Errorf("-ippool %q: want namespace/name", c.ippool)
		}
		c.namespace, c.name = ns, name
	}
	if c.poll <= 0 {
		return nil, fmt.Errorf("-poll %s: must be positive", c.poll)
	}
	if c.probation < 0 || c.summary < 0 || c.rcvbuf < 0 || c.stateWait < 0 {
		return nil, errors.New("-probation, -summary, -rcvbuf and -state-wait must not be negative")
	}
	laddr, err := net.ResolveUDPAddr("udp4", *listen)
	if err != nil {
		return nil, fmt.Errorf("-listen %q: %w", *listen, err)
	}
	c.listen = laddr
	if c.listen6, err = netip.ParseAddrPort(*listen6); err != nil || !c.listen6.Addr().Is6() {
		return nil, fmt.Errorf("-listen6 %q: want an IPv6 address and port, like [::]:547", *listen6)
	}
	if c.relays6, err = parsePrefixes("relays6", *relays6, true); err != nil {
		return nil, err
	}
	if c.peers4, err = parsePrefixes("peers4", *peers4, false); err != nil {
		return nil, err
	}
	switch a, err := netip.ParseAddr(c.serverIP); {
	case c.serverIP == "":
	case c.serverIP == "iface" && c.iface == "":
		return nil, errors.New("-server-ip iface needs -iface")
	case c.serverIP == "iface":
	case err != nil || !a.Is4():
		return nil, fmt.Errorf("-server-ip %q: want an IPv4 address or \"iface\"", c.serverIP)
	}
	if *duid != "" {
		if c.duid, err = parseDUID(*duid); err != nil {
			return nil, err
		}
	}
	c.logger = logging.Logger()
	return c, nil
}
