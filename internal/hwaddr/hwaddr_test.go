package hwaddr

import (
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/macoracle"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantN   int
		wantErr bool
	}{
		{name: "colons", in: "52:54:00:ab:cd:ef", wantN: 6},
		{name: "hyphens upper case", in: "52-54-00-AB-CD-EF", wantN: 6},
		{name: "dots", in: "5254.00ab.cdef", wantN: 6},
		{name: "bare", in: "525400abcdef", wantN: 6},
		{name: "EUI-64", in: "02:00:5e:10:00:00:00:01", wantN: 8},
		{name: "InfiniBand", in: "00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01", wantN: 20},
		{name: "empty", in: "", wantErr: true},
		{name: "mixed separators", in: "52:54:00-ab-cd-ef", wantErr: true},
		{name: "bad digit", in: "52:54:00:ab:cd:eg", wantErr: true},
		{name: "short group", in: "52:54:00:ab:cd:e", wantErr: true},
		{name: "odd bare", in: "525400abcde", wantErr: true},
		{name: "leading space", in: " 52:54:00:ab:cd:ef", wantErr: true},
		{name: "longer than 20 bytes", in: "00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dst [6]byte
			n, err := Parse(tt.in, dst[:])
			if (err != nil) != tt.wantErr || n != tt.wantN && !tt.wantErr {
				t.Fatalf("Parse(%q) = %d, %v; want %d, error %t", tt.in, n, err, tt.wantN, tt.wantErr)
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"52:54:00:AB:cd:EF":       "52:54:00:ab:cd:ef",
		"5254.00AB.CDEF":          "52:54:00:ab:cd:ef",
		"525400ABCDEF":            "52:54:00:ab:cd:ef",
		"02:00:5e:10:00:00:00:01": "",
		"not a mac":               "",
	} {
		got, ok := Canonical(in)
		if got != want || ok != (want != "") {
			t.Errorf("Canonical(%q) = %q, %t; want %q", in, got, ok, want)
		}
	}
}

// FuzzParse checks Parse against net.ParseMAC (Go 1.26's, on any toolchain:
// macoracle.ParseMAC), which accepts the same spellings but only 6-, 8- and
// 20-byte addresses; Parse counts any length so that its callers can say
// what a wrong-length address is.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"52:54:00:12:34:56", "52-54-00-AB-CD-EF", "5254.00ab.cdef", "525400abcdef", "5254.00ab.cdef.0102", "", "zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var dst [20]byte
		n, err := Parse(s, dst[:])
		hw, stdErr := macoracle.ParseMAC(s)
		if err == nil && n != 6 && n != 8 && n != 20 {
			if stdErr == nil {
				t.Fatalf("net.ParseMAC(%q) accepted a %d-byte address", s, n)
			}
			return
		}
		if (err == nil) != (stdErr == nil) {
			t.Fatalf("Parse(%q) error %v; net.ParseMAC error %v", s, err, stdErr)
		}
		if err != nil {
			return
		}
		if n != len(hw) || string(dst[:n]) != string(hw) {
			t.Fatalf("Parse(%q) = %x; net.ParseMAC = %x", s, dst[:n], []byte(hw))
		}
	})
}
