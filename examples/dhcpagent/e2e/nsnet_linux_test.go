package e2e

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
)

// forward listens on addr inside network namespace ns and relays each
// connection to target in the test's own namespace: how an agent inside
// its namespace reaches the API server on the host's loopback, as a pod
// reaches its cluster's service address. While nothing listens at target
// (the API server stopped), a connection is closed at once, as a refused
// one would be. t.Cleanup closes the listener and every connection.
func forward(t testing.TB, ns, addr, target string) {
	t.Helper()
	var ln net.Listener
	if err := netnstest.In(ns, func() (err error) {
		ln, err = net.Listen("tcp", addr)
		return err
	}); err != nil {
		t.Fatalf("listen on %s in %s: %v", addr, ns, err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	track := func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.DialTimeout("tcp", target, 2*time.Second)
			if err != nil {
				in.Close()
				continue
			}
			track(in)
			track(out)
			go func() { io.Copy(out, in); out.Close() }()
			go func() { io.Copy(in, out); in.Close() }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
}

// nsHTTP is an HTTP client whose connections are made inside network
// namespace ns: how the test reads an agent's /readyz and /metrics bound
// to the loopback of its namespace.
func nsHTTP(ns string) *http.Client {
	return &http.Client{
		Timeout: 2 * time.Second,
		Transport: &http.Transport{
			DisableKeepAlives: true,
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				var c net.Conn
				err := netnstest.In(ns, func() (err error) {
					c, err = (&net.Dialer{Timeout: time.Second}).DialContext(ctx, network, addr)
					return err
				})
				if c == nil && err == nil {
					err = errors.New("no connection")
				}
				return c, err
			},
		},
	}
}
