package errtext

import (
	"strconv"
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	long := strings.Repeat("a", MaxBytes)
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", `""`},
		{"short", "10.0.0.1", `"10.0.0.1"`},
		{"escapes as %q", "a\x00\n\"", `"a\x00\n\""`},
		{"exactly MaxBytes", long, strconv.Quote(long)},
		{"one byte more", long + "b", strconv.Quote(long+"…") + " (" + strconv.Itoa(MaxBytes+1) + " bytes)"},
		{"10 MB of a", strings.Repeat("a", 10<<20), strconv.Quote(long+"…") + " (10485760 bytes)"},
		{"a rune across the cut is left out whole", long[1:] + "é" + "x", strconv.Quote(long[1:]+"…") + " (" + strconv.Itoa(MaxBytes+2) + " bytes)"},
		{"invalid UTF-8 across the cut is cut as bytes", long[1:] + "\xff\xfe", strconv.Quote(long[1:]+"\xff…") + " (" + strconv.Itoa(MaxBytes+1) + " bytes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Quote(tt.in); got != tt.want {
				t.Errorf("Quote = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestQuoteIsBounded: whatever the input, the quoted form is at most
// MaxLen bytes; a NUL, an invalid byte and a non-printable rune are the
// escapes that grow most.
func TestQuoteIsBounded(t *testing.T) {
	for _, unit := range []string{"\x00", "\xff", "\u0085", "\ufeff", "\U000e0001", "é", "a"} {
		for _, n := range []int{MaxBytes - 1, MaxBytes, MaxBytes + 1, 10 << 20} {
			s := strings.Repeat(unit, n/len(unit)+1)
			got := Quote(s)
			if len(got) > MaxLen {
				t.Errorf("Quote(%d × %q) is %d bytes, more than MaxLen %d", n, unit, len(got), MaxLen)
			}
			if q, err := strconv.Unquote(got[:strings.LastIndexByte(got, '"')+1]); err != nil {
				t.Errorf("Quote(%d × %q) = %s: its quoted part does not unquote: %v", n, unit, got, err)
			} else if !strings.HasPrefix(s, strings.TrimSuffix(q, "…")) {
				t.Errorf("Quote(%d × %q) = %s: not a head of the input", n, unit, got)
			}
		}
	}
}
