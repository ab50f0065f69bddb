package leasestore_test

import (
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vmnetkit/vmnetkit/internal/macoracle"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// TestMACSpellingsFindOneLease: the field failure "MACs are looked up in a
// different spelling than they were stored in". Every accepted spelling of
// one address is the same MAC value, and String is the one form a DHCP
// wire library prints.
func TestMACSpellingsFindOneLease(t *testing.T) {
	want := leasestore.MustParseMAC("52:54:00:ab:cd:ef")
	for _, s := range []string{
		"52:54:00:ab:cd:ef",
		"52:54:00:AB:CD:EF",
		"52-54-00-AB-CD-EF",
		"52-54-00-ab-cd-ef",
		"5254.00ab.cdef",
		"5254.00AB.cDeF",
		"525400ABcdef",
	} {
		t.Run(s, func(t *testing.T) {
			got, err := leasestore.ParseMAC(s)
			if err != nil {
				t.Fatalf("ParseMAC(%q): %v", s, err)
			}
			if got != want {
				t.Errorf("ParseMAC(%q) = %v, want %v", s, got, want)
			}
			if got.String() != "52:54:00:ab:cd:ef" {
				t.Errorf("ParseMAC(%q).String() = %q, want the lowercase colon form", s, got.String())
			}
		})
	}
}

func TestParseMACErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in, wantErr string
	}{
		{"empty", "", `ParseMAC(""): empty string`},
		{"EUI-64 colons", "02:00:5e:10:00:00:00:01", "8-byte EUI-64 address, want 6 bytes"},
		{"EUI-64 dots", "0200.5e10.0000.0001", "8-byte EUI-64 address, want 6 bytes"},
		{"InfiniBand", "00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01", "20-byte InfiniBand address, want 6 bytes"},
		{"five bytes", "52:54:00:ab:cd", "5-byte address, want 6 bytes"},
		{"odd bare digits", "525400abcde", "want xx:xx:xx:xx:xx:xx"},
		{"bare EUI-64", "02005e1000000001", "8-byte EUI-64 address"},
		{"bare bad digit", "525400abcdeg", "want xx:xx"},
		{"mixed separators", "52:54-00:ab:cd:ef", "unexpected '-' at offset 5"},
		{"one-digit group", "52:54:0:ab:cd:ef", "invalid hex digit at offset 6"},
		{"bad digit", "52:54:00:ab:cd:eg", "invalid hex digit at offset 15"},
		{"trailing separator", "52:54:00:ab:cd:ef:", "short group at offset 18"},
		{"leading space", " 52:54:00:ab:cd:ef", "want xx:xx"},
		{"too long", strings.Repeat("ab:", 30) + "ab", "too long"},
		{"dot form short group", "5254.00ab.cde", "short group at offset 10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := leasestore.ParseMAC(tc.in)
			if err == nil {
				t.Fatalf("ParseMAC(%q) = %v, want an error", tc.in, got)
			}
			if !errors.Is(err, leasestore.ErrNotMAC) {
				t.Errorf("ParseMAC(%q) error %q does not wrap ErrNotMAC", tc.in, err)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseMAC(%q) error %q, want it to contain %q", tc.in, err, tc.wantErr)
			}
		})
	}
}

func TestMACFrom(t *testing.T) {
	for _, tc := range []struct {
		name    string
		hw      net.HardwareAddr
		want    string
		wantErr string
	}{
		{"MAC-48", net.HardwareAddr{0x52, 0x54, 0, 0xab, 0xcd, 0xef}, "52:54:00:ab:cd:ef", ""},
		{"nil", nil, "", "0-byte address, want 6 bytes"},
		{"EUI-64", make(net.HardwareAddr, 8), "", "8-byte EUI-64 address"},
		{"InfiniBand", make(net.HardwareAddr, 20), "", "20-byte InfiniBand address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := leasestore.MACFrom(tc.hw)
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, leasestore.ErrNotMAC) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("MACFrom(%v) = %v, %v; want an ErrNotMAC error containing %q", tc.hw, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got.String() != tc.want {
				t.Fatalf("MACFrom(%v) = %v, %v; want %s", tc.hw, got, err, tc.want)
			}
			if hw := got.HardwareAddr(); hw.String() != tc.want {
				t.Errorf("HardwareAddr() = %v, want %s", hw, tc.want)
			}
		})
	}
}

func TestMACFromDoesNotAlias(t *testing.T) {
	hw := net.HardwareAddr{0x52, 0x54, 0, 0xab, 0xcd, 0xef}
	m, err := leasestore.MACFrom(hw)
	if err != nil {
		t.Fatal(err)
	}
	hw[5] = 0
	m.HardwareAddr()[0] = 0
	if m.String() != "52:54:00:ab:cd:ef" {
		t.Errorf("MAC changed with the slices it came from or gave out: %v", m)
	}
}

func TestMACCompare(t *testing.T) {
	macs := []string{"00:00:00:00:00:00", "00:00:00:00:00:01", "00:00:00:00:01:00", "52:54:00:ab:cd:ef", "ff:ff:ff:ff:ff:ff"}
	for i, a := range macs {
		for j, b := range macs {
			got := leasestore.MustParseMAC(a).Compare(leasestore.MustParseMAC(b))
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			if got != want {
				t.Errorf("%s.Compare(%s) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func TestMACText(t *testing.T) {
	m := leasestore.MustParseMAC("52-54-00-AB-CD-EF")
	text, err := m.MarshalText()
	if err != nil || string(text) != "52:54:00:ab:cd:ef" {
		t.Fatalf("MarshalText() = %q, %v", text, err)
	}
	room := make([]byte, 0, 32)
	appended, err := m.AppendText(append(room, "mac="...))
	if err != nil || string(appended) != "mac=52:54:00:ab:cd:ef" {
		t.Fatalf("AppendText(mac=) = %q, %v", appended, err)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = m.AppendText(room[:0]) }); n != 0 {
		t.Errorf("AppendText with room: %v allocations, want 0", n)
	}
	var back leasestore.MAC
	if err := back.UnmarshalText(text); err != nil || back != m {
		t.Fatalf("UnmarshalText(%q) = %v, %v; want %v", text, back, err, m)
	}
	if err := back.UnmarshalText([]byte("nope")); !errors.Is(err, leasestore.ErrNotMAC) {
		t.Errorf("UnmarshalText(nope) = %v, want ErrNotMAC", err)
	}
	if back != m {
		t.Errorf("UnmarshalText changed the MAC on an error: %v", back)
	}
}

func TestMustParseMACPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParseMAC(bad) did not panic")
		}
	}()
	leasestore.MustParseMAC("bad")
}

// FuzzParseMAC checks ParseMAC against net.ParseMAC (Go 1.26's, on any
// toolchain: macoracle.ParseMAC), which accepts the same spellings for 6-, 8- and
// 20-byte addresses, and the round trip through String.
func FuzzParseMAC(f *testing.F) {
	for _, s := range []string{
		"52:54:00:ab:cd:ef", "52-54-00-AB-CD-EF", "5254.00ab.cdef", "",
		"02:00:5e:10:00:00:00:01", "0200.5e10.0000.0001", "52:54:00:ab:cd", "525400abcdef",
		"52:54-00:ab:cd:ef", "52:54:00:ab:cd:ef:", "5254.00ab.cdef.", "ff:ff:ff:ff:ff:ff",
		"00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := leasestore.ParseMAC(s)
		hw, netErr := macoracle.ParseMAC(s)
		if want := netErr == nil && len(hw) == 6; (err == nil) != want {
			t.Fatalf("ParseMAC(%q) error %v; net.ParseMAC = %v, %v", s, err, hw, netErr)
		}
		if err != nil {
			if !errors.Is(err, leasestore.ErrNotMAC) {
				t.Fatalf("ParseMAC(%q) error %v does not wrap ErrNotMAC", s, err)
			}
			return
		}
		if diff := cmp.Diff(hw, m.HardwareAddr()); diff != "" {
			t.Fatalf("ParseMAC(%q) bytes (-net +ours):\n%s", s, diff)
		}
		str := m.String()
		if str != strings.ToLower(strings.ReplaceAll(hw.String(), "-", ":")) || len(str) != 17 {
			t.Fatalf("ParseMAC(%q).String() = %q, want %q", s, str, hw.String())
		}
		back, err := leasestore.ParseMAC(str)
		if err != nil || back != m {
			t.Fatalf("ParseMAC(%q) = %v, %v; want %v", str, back, err, m)
		}
	})
}
