package agent

import (
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"

	"fmt"
	"net"
	"net/netip"
	"testing"

	"github.com/go-logr/logr"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
)

// benchPool is a /16 pool with n leases.
func benchPool(n int) *poolsource.Pool {
	alloc := make(map[string]string, n)
	for i := range n {
		a := netip.AddrFrom4([4]byte{10, 77, byte(1 + i>>8), byte(i)})
		alloc[a.String()] = fmt.Sprintf("52:54:00:%02x:%02x:%02x", i>>16&0xff, i>>8&0xff, i&0xff)
	}
	p := labtest.Pool(alloc)
	p.Spec.CIDR, p.Spec.RangeStart, p.Spec.RangeEnd, p.Spec.Exclude = "10.77.0.0/16", "", "", nil
	return p
}

// BenchmarkReply is the agent's per-request work on a 10,000-lease table:
// the decision and the reply's options, then its wire encoding.
func BenchmarkReply(b *testing.B) {
	a := newAgent(b, benchPool(10000), logr.Discard())
	req := dhcp4test.Discover(b, "52:54:00:00:12:34")
	b.ReportAllocs()
	for b.Loop() {
		resp, err := a.Respond(req)
		if err != nil {
			b.Fatal(err)
		}
		_ = resp.ToBytes()
	}
}

// BenchmarkHandle is Reply plus the destination and the send, on a
// connection that discards.
func BenchmarkHandle(b *testing.B) {
	a := newAgent(b, benchPool(10000), logr.Discard())
	req := dhcp4test.Discover(b, "52:54:00:00:12:34")
	conn := &captureConn{}
	peer := &net.UDPAddr{IP: net.IPv4bcast, Port: dhcp4.ClientPort}
	b.ReportAllocs()
	for b.Loop() {
		a.Handle(conn, peer, req)
	}
}

// BenchmarkApply is one reload of a 10,000-lease pool: conversion, ipam
// parse, leasestore build, diff against the previous table, swap.
func BenchmarkApply(b *testing.B) {
	a := newAgent(b, benchPool(10000), logr.Discard())
	p := benchPool(10000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Apply(p); err != nil {
			b.Fatal(err)
		}
	}
}
