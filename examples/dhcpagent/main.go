// Command dhcpagent serves the DHCPv4 leases of one vmnetkit IPPool, and
// the DHCPv6 leases of its IPv6 part (spec.ipv6, status.ipv6).
//
// It reads the pool from one of two sources, builds the lease tables, and
// answers DISCOVER, REQUEST and INFORM on one interface, and takes note of
// DECLINE and RELEASE; for a dual-stack pool also SOLICIT, REQUEST, RENEW,
// REBIND, CONFIRM and INFORMATION-REQUEST, and DHCPv6 DECLINE and RELEASE.
// Whenever the pool changes it swaps in new tables, logging the adds,
// updates and removes.
//
// DHCPv6 needs -iface: clients multicast to ff02::1:2, and the agent reads
// those messages with an AF_PACKET socket on the interface (CAP_NET_RAW),
// which gives each frame's source MAC: the client's identity when its DUID
// holds no MAC (DUID-UUID, DUID-EN) and its link-local address is not
// EUI-64. It binds -listen6 ([::]:547) for what relays send and for every
// reply. It names itself by -duid, by default a DUID-UUID derived from the
// pool's namespace and name, so that a restarted agent (or a replica) is
// the server clients already know. DHCPv6 starts when the first version
// of the pool has an IPv6 part; an IPv6 part added later needs a restart.
//
//	go run ./examples/dhcpagent -pool pool.json -iface eth0
//	go run ./examples/dhcpagent -kubeconfig ~/.kube/config -ippool default/lab -iface eth0
//
// With -pool, the IPPool object as JSON in a file (kubectl get ippool lab
// -o json): the file's directory is watched with inotify, so a change, or
// a new file renamed over it, is loaded at once; -poll is a slow fallback
// check for file systems that send no events. With -ippool, the IPPool
// itself from the API server (-kubeconfig, or without it $KUBECONFIG, the
// in-cluster config, ~/.kube/config, in that order): an informer
// restricted to that one object swaps the table on every change, without
// polling, and each DECLINE is also recorded as a Warning event (reason
// AddressDeclined) on the IPPool. The agent needs get, list and watch on
// ippools.network.vmnetkit.dev and create and patch on events
// (config/rbac/role.yaml, generated from rbac.go).
//
// Run it with -h for the flags. The manifests in config/manager run it
// without capabilities: a dual-stack pool is then served DHCPv6 from a UDP
// socket that joins ff02::1:2, without the frames' source MACs (a client
// whose DUID holds no MAC and whose link-local address is not EUI-64 gets
// no address; the agent logs it at start). CAP_NET_RAW in the process's
// effective set (root, or a file capability on the binary) gives the
// packet socket. Binding port 67 needs root,
// CAP_NET_BIND_SERVICE or, in its own network namespace, the namespaced
// sysctl net.ipv4.ip_unprivileged_port_start=67 (what config/manager
// sets). -iface (SO_BINDTODEVICE on a socket not yet bound) needs no
// capability on Linux 5.7 and later. A receive buffer larger than
// net.core.rmem_max needs CAP_NET_ADMIN (the agent logs what the kernel
// granted). The first load must succeed; later bad versions of the pool
// are logged and the last good table keeps being served.
//
// With -health-probe-bind-address, /readyz answers 200 once a lease table
// is loaded and the serve loop runs, /healthz while the serve loop is not
// stuck on one request; with -metrics-bind-address, /metrics serves the
// agent's counters (plain HTTP: they hold no secret).
//
// At the default verbosity it logs what an operator acts on: table swaps
// and their plans, problems, declines, releases, and a summary every
// -summary interval (messages received, replies by type, NAKs, declines,
// releases, drops, the table's resourceVersion and size). -v=1 adds a line
// per packet.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/agent"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/apiserver"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/udpsocket"
	"github.com/vmnetkit/vmnetkit/examples/internal/command"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stderr)
	stop()
	os.Exit(command.ExitCode("dhcpagent", err, os.Stderr))
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	c, err := parse(args, stderr)
	if err != nil {
		return err
	}
	log := c.logger
	if c.cpuProfile != "" {
		stop, err := startCPUProfile(c.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	opts := []agent.Option{agent.WithLogger(log), agent.WithProbation(c.probation)}
	var (
		watch *apiserver.IPPoolWatch
		dc    dynamic.Interface
		saved *lastGood
	)
	if c.ippool != "" {
		rc, err := c.RESTConfig()
		if err != nil {
			return fmt.Errorf("kubeconfig: %w", err)
		}
		if dc, err = dynamic.NewForConfig(rc); err != nil {
			return err
		}
		kc, err := kubernetes.NewForConfig(rc)
		if err != nil {
			return err
		}
		recorder, stopEvents := apiserver.NewEventRecorder(kc)
		defer stopEvents()
		if c.stateDir != "" {
			saved = newLastGood(c.stateDir, c.ippool, log)
		}
		record := apiserver.DeclineEvents(func() *unstructured.Unstructured { return watch.Latest() }, recorder)
		opts = append(opts, agent.WithDeclineHook(func(d agent.Decline) { record(d.MAC, d.Addr, d.Until) }))
	}
	duid, err := c.serverDUID()
	if err != nil {
		return err
	}
	sid, err := c.serverID4()
	if err != nil {
		return err
	}
	opts = append(opts, agent.WithServerDUID(duid), agent.WithRelays6(c.relays6),
		agent.WithServerID4(sid), agent.WithPeers4(c.peers4))
	a := agent.New(nil, opts...)
	loop := &serveLoop{}
	// The probes answer from the start: not ready while the first load
	// and the bind are under way.
	if addr, on := command.BindAddress(c.ProbeAddr); on {
		bound, closeProbes, err := listenHTTP(addr, probeHandler(
			func() error { return loop.alive(time.Now()) },
			func() error { return ready(a, loop) },
			func() string { return saved.note() }))
		if err != nil {
			return fmt.Errorf("-health-probe-bind-address %q: %w", c.ProbeAddr, err)
		}
		defer closeProbes()
		log.Info("probes", "addr", bound)
	}
	if c.ippool != "" {
		apply := poolsource.Loads(a.Apply)
		var extra []prometheus.Collector
		if saved != nil {
			apply = saved.apply(apply)
			extra = append(extra, saved.collector())
		}
		watch = apiserver.NewIPPoolWatch(dc, c.namespace, c.name, apply, log)
		if err := startWatch(ctx, watch, saved, a, c.stateWait, log); err != nil {
			return err
		}
		return serve(ctx, c, a, loop, log, nil, extra...)
	}
	file := poolsource.NewFile(c.pool, poolsource.Loads(a.Apply), log)
	if err := file.Load(); err != nil {
		return err
	}
	return serve(ctx, c, a, loop, log, func(ctx context.Context) { file.Watch(ctx, c.poll) })
}

// serve binds the socket and answers on it until ctx is done, with the
// pool source, the summary and the metrics server beside it.
func serve(ctx context.Context, c *config, a *agent.Agent, loop *serveLoop, log logr.Logger, source func(context.Context), extra ...prometheus.Collector) error {
	conn, err := udpsocket.Listen(c.iface, c.listen.AddrPort())
	if err != nil {
		return fmt.Errorf("listen on %s (interface %q): %w", c.listen, c.iface, err)
	}
	if c.rcvbuf > 0 {
		granted, err := udpsocket.SetReceiveBuffer(conn, c.rcvbuf)
		if err != nil {
			log.Error(err, "socket receive buffer", "asked", c.rcvbuf, "granted", granted)
		} else {
			log.Info("socket receive buffer", "asked", c.rcvbuf, "granted", granted)
		}
	}
	if addr, on := command.BindAddress(c.MetricsAddr); on {
		reg := prometheus.NewRegistry()
		reg.MustRegister(a.Collector(), a.Collector6())
		reg.MustRegister(extra...)
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
		bound, closeMetrics, err := listenHTTP(addr, mux)
		if err != nil {
			conn.Close()
			return fmt.Errorf("-metrics-bind-address %q: %w", c.MetricsAddr, err)
		}
		defer closeMetrics()
		log.Info("metrics", "addr", bound)
	}
	if source != nil {
		go source(ctx)
	}
	if c.summary > 0 {
		go a.Summarize(ctx, c.summary)
	}
	// DHCPv6 beside DHCPv4: either ending ends both.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var served6 chan error
	if a.Table6() == nil {
		log.Info("DHCPv6 off: the pool has no IPv6 part (spec.ipv6); one added later needs a restart")
	} else {
		conn6, mc, err := listen6(c, log)
		if err != nil {
			conn.Close()
			return err
		}
		log.Info("DHCPv6 server DUID", "duid", fmt.Sprintf("%x", a.ServerDUID()))
		served6 = make(chan error, 1)
		var multicast agent.Multicast6 // nil, not a nil *packetsocket.Socket, without one
		if mc != nil {
			multicast = mc
		}
		go func() {
			served6 <- a.Serve6(ctx, conn6, multicast, c.iface)
			cancel()
		}()
	}
	defer loop.stop()
	err = a.Serve(ctx, loop.wrap(conn))
	if served6 == nil {
		return err
	}
	cancel()
	return errors.Join(err, <-served6)
}
