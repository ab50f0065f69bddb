package errtext

import (
	"strconv"
	"unicode/utf8"
)

// MaxBytes is the most bytes of a value that Quote writes. Quoting
// escapes a byte into at most four (a NUL is \x00), so a quoted value
// takes at most 4*MaxBytes bytes plus its quotes, an ellipsis and its
// length.
const MaxBytes = 96

// Quote returns s quoted as strconv.Quote (and %q) quote it when s holds
// at most MaxBytes bytes. A longer s is cut after MaxBytes bytes (before
// a rune that would straddle the cut), its quoted head ends in "…", and
// its length in bytes follows:
//
//	"aaaa…" (10485760 bytes)
//
// The result is at most 4*MaxBytes+32 bytes long, whatever s. It reads
// only the bytes it writes.
func Quote(s string) string {
	if len(s) <= MaxBytes {
		return strconv.Quote(s)
	}
	head := s[:MaxBytes]
	// Back off to the start of the rune the cut splits, if it is one:
	// a valid rune is not shown as its bytes.
	for i := len(head) - 1; i >= 0 && i >= len(head)-utf8.UTFMax; i-- {
		if utf8.RuneStart(head[i]) {
			if r, n := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || n > 1 {
				if i+n > len(head) {
					head = head[:i]
				}
			}
			break
		}
	}
	return strconv.Quote(head+"…") + " (" + strconv.Itoa(len(s)) + " bytes)"
}

// MaxLen is the longest string Quote returns.
const MaxLen = 4*MaxBytes + 32
