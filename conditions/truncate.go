package conditions

import "unicode/utf8"

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
