package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestDHCPSection(t *testing.T) {
	var a, b bytes.Buffer
	if err := dhcpSection(&a); err != nil {
		t.Fatal(err)
	}
	if err := dhcpSection(&b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("two runs differ:\n%s\n---\n%s", a.String(), b.String())
	}
	for _, want := range []string{
		"agent loads pool default/lab: 3 leases (3 adds), 0 problems",
		"DISCOVER from 52:54:00:aa:bb:02 -> OFFER, a 300-byte packet to 255.255.255.255:68:",
		"  yiaddr 192.168.10.11, server id 192.168.10.1, mask 255.255.255.0, router 192.168.10.1",
		"  dns 192.168.10.1, domain lab.example, lease time 1h0m0s (renew at 30m0s, rebind at 52m30s)",
		"DISCOVER from 52:54:00:ff:ff:ff: no reply (no lease for this MAC: 52:54:00:ff:ff:ff)",
	} {
		if !strings.Contains(a.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, a.String())
		}
	}
}
