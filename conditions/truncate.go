package conditions

import (
	"strings"
	"unicode/utf8"
)

// truncateUTF8 returns the longest prefix of s of at most n bytes that does
// not split a UTF-8 sequence.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// validUTF8 returns s with each byte that is not part of a valid UTF-8
// sequence replaced by U+FFFD, the text encoding/json writes for s (and so
// the text the API server stores). It returns s itself, without allocating,
// when s is valid.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*utf8.UTFMax)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// PublishableMessage returns s as a condition's Message that the API server
// accepts and stores unchanged: each byte that is not valid UTF-8 replaced
// by U+FFFD (as encoding/json writes it), then cut to MaxMessageLength bytes
// on a rune boundary. A message that went through it compares equal when
// read back, so a controller that compares before writing does not write
// the same condition again. It returns s itself, without allocating, when s
// is valid and short enough. Summary and the cacheready machine publish
// their messages through it; adapters should too.
func PublishableMessage(s string) string {
	return truncateUTF8(validUTF8(s), MaxMessageLength)
}
