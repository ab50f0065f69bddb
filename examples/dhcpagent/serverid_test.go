package main

import (
	"encoding/hex"
	"testing"
)

// TestPoolDUID: the DUID depends on the pool's identity only, so a
// restarted agent (or a replica) for the pool names itself as before, and
// it is a well-formed DUID-UUID (type 4, UUID version 5, RFC 9562
// variant).
func TestPoolDUID(t *testing.T) {
	a, again, other := poolDUID("default", "lab"), poolDUID("default", "lab"), poolDUID("default", "lab2")
	if hex.EncodeToString(a) != hex.EncodeToString(again) {
		t.Errorf("the same pool gave %x and %x", a, again)
	}
	if hex.EncodeToString(a) == hex.EncodeToString(other) {
		t.Errorf("two pools share DUID %x", a)
	}
	if len(a) != 18 || a[0] != 0 || a[1] != 4 || a[8]>>4 != 5 || a[10]>>6 != 2 {
		t.Errorf("%x is not a DUID-UUID of a version-5 UUID", a)
	}
}

func TestParseDUID(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // hex; "" for an error
	}{
		{"00:03:00:01:52:54:00:aa:00:01", "00030001525400aa0001"},
		{"00030001525400aa0001", "00030001525400aa0001"},
		{"0003", ""},
		{"zz", ""},
	} {
		got, err := parseDUID(tc.in)
		if tc.want == "" {
			if err == nil {
				t.Errorf("parseDUID(%q) = %x, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || hex.EncodeToString(got) != tc.want {
			t.Errorf("parseDUID(%q) = %x, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}
