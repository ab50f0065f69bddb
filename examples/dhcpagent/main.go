// Command dhcpagent serves the DHCPv4 leases of one vmnetkit IPPool.
//
// It reads the pool object as JSON from a file (the IPPool as the API server
// returns it; see agent.Pool), builds the lease table, and answers DISCOVER
// and REQUEST on one interface. It polls the file and swaps in a new table
// whenever the content changes, logging the adds, updates and removes.
//
//	go run ./examples/dhcpagent -pool pool.json -iface eth0
//
// Flags:
//
//	-pool file       the IPPool JSON (required)
//	-iface name      the interface to serve (SO_BINDTODEVICE); empty: every interface
//	-listen addr     the UDP address to listen on (default 0.0.0.0:67)
//	-poll interval   how often to check the pool file (default 2s)
//	-v               also log requests that get no reply, and why
//
// Binding port 67 and an interface needs root or CAP_NET_BIND_SERVICE and
// CAP_NET_RAW. The first load must succeed; later bad versions of the file
// are logged and the last good table keeps being served.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4/server4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/agent"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "dhcpagent:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("dhcpagent", flag.ContinueOnError)
	pool := fs.String("pool", "", "the IPPool `file` (JSON)")
	iface := fs.String("iface", "", "the `interface` to serve; empty: every interface")
	listen := fs.String("listen", "0.0.0.0:67", "the UDP `address` to listen on")
	poll := fs.Duration("poll", 2*time.Second, "how often to check the pool file")
	verbose := fs.Bool("v", false, "also log requests that get no reply")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *pool == "" {
		return errors.New("-pool is required")
	}
	if *poll <= 0 {
		return fmt.Errorf("-poll %s: must be positive", *poll)
	}
	laddr, err := net.ResolveUDPAddr("udp4", *listen)
	if err != nil {
		return fmt.Errorf("-listen %q: %w", *listen, err)
	}

	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	a := agent.New(log)
	if _, err := a.LoadFile(*pool); err != nil {
		return err
	}

	conn, err := server4.NewIPv4UDPConn(*iface, laddr)
	if err != nil {
		return fmt.Errorf("listen on %s (interface %q): %w", laddr, *iface, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go a.Watch(ctx, *pool, *poll)
	return a.Serve(ctx, conn)
}
