package dhcp6wire_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
)

func TestParseDUID(t *testing.T) {
	mac := [6]byte{0x02, 0x54, 0x00, 0xaa, 0xbb, 0xcc}
	uuid := []byte{0, 4, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	for _, tc := range []struct {
		name    string
		b       []byte
		typ     dhcp6wire.DUIDType
		mac     [6]byte
		hasMAC  bool
		wantErr bool
	}{
		{"LLT Ethernet", dhcp6wire.AppendDUIDLLT(nil, 1, mac), dhcp6wire.DUIDLLT, mac, true, false},
		{"LL Ethernet", dhcp6wire.AppendDUIDLL(nil, mac), dhcp6wire.DUIDLL, mac, true, false},
		{"LL of hardware type 6", []byte{0, 3, 0, 6, 1, 2, 3, 4, 5, 6}, dhcp6wire.DUIDLL, [6]byte{}, false, false},
		{"LL of an 8-byte address", []byte{0, 3, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8}, dhcp6wire.DUIDLL, [6]byte{}, false, false},
		{"EN", []byte{0, 2, 0, 0, 0x9, 0xbf, 'i', 'd'}, dhcp6wire.DUIDEN, [6]byte{}, false, false},
		{"UUID", uuid, dhcp6wire.DUIDUUID, [6]byte{}, false, false},
		{"unknown type", []byte{0, 9, 1}, 9, [6]byte{}, false, false},
		{"one byte", []byte{0}, 0, [6]byte{}, false, true},
		{"LLT without time", []byte{0, 1, 0, 1, 0, 0}, 0, [6]byte{}, false, true},
		{"EN cut", []byte{0, 2, 0, 0, 0}, 0, [6]byte{}, false, true},
		{"LL cut", []byte{0, 3, 0}, 0, [6]byte{}, false, true},
		{"UUID of 17 bytes", uuid[:17], 0, [6]byte{}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := dhcp6wire.ParseDUID(tc.b)
			if tc.wantErr {
				if !errors.Is(err, dhcp6wire.ErrDUID) {
					t.Errorf("ParseDUID(%x) = %+v, %v; want ErrDUID", tc.b, d, err)
				}
				return
			}
			if err != nil || d.Type != tc.typ {
				t.Fatalf("ParseDUID(%x) = %+v, %v", tc.b, d, err)
			}
			if got, ok := d.MAC(); got != tc.mac || ok != tc.hasMAC {
				t.Errorf("MAC() = %x, %v; want %x, %v", got, ok, tc.mac, tc.hasMAC)
			}
		})
	}
	d, _ := dhcp6wire.ParseDUID(uuid)
	if d.UUID != [16]byte(uuid[2:]) {
		t.Errorf("UUID = %x", d.UUID)
	}
	d, _ = dhcp6wire.ParseDUID([]byte{0, 2, 0, 0, 0x9, 0xbf, 'i', 'd'})
	if d.Enterprise != 2495 || string(d.Identifier) != "id" {
		t.Errorf("EN = %d %q", d.Enterprise, d.Identifier)
	}
}

func TestDomainList(t *testing.T) {
	for _, tc := range []struct {
		name  string
		names []string
		wire  []byte
		back  []string
	}{
		{"two names", []string{"lab.example", "ex."}, []byte("\x03lab\x07example\x00\x02ex\x00"), []string{"lab.example", "ex"}},
		{"none", nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := dhcp6wire.AppendDomainList(nil, tc.names)
			if err != nil || string(b) != string(tc.wire) {
				t.Fatalf("AppendDomainList = %q, %v; want %q", b, err, tc.wire)
			}
			got, err := dhcp6wire.ParseDomainList(b)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.back, got); diff != "" {
				t.Errorf("ParseDomainList (-want +got):\n%s", diff)
			}
		})
	}
	for _, bad := range [][]string{{""}, {"."}, {"a..b"}, {string(make([]byte, 64))}} {
		if b, err := dhcp6wire.AppendDomainList([]byte{7}, bad); !errors.Is(err, dhcp6wire.ErrDomainName) || len(b) != 1 {
			t.Errorf("AppendDomainList(%q) = %q, %v; want ErrDomainName and b unchanged", bad, b, err)
		}
	}
	for _, bad := range []string{"\x03lab", "\x03la", "\xc0\x0c", "\x03lab\x00\x01"} {
		if _, err := dhcp6wire.ParseDomainList([]byte(bad)); !errors.Is(err, dhcp6wire.ErrDomainName) {
			t.Errorf("ParseDomainList(%q) = %v, want ErrDomainName", bad, err)
		}
	}
}
