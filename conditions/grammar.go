package conditions

// The API server's patterns, matched by hand so that Validate does not
// allocate (regexp does, through its machine pool, under -race); the tests
// check these against the literal regular expressions.

// isReason matches ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$.
func isReason(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && !isDigit(c) && c != '_' && c != ',' && c != ':' {
			return false
		}
	}
	last := s[len(s)-1]
	return isLetter(last) || isDigit(last) || last == '_'
}

// isTypeName matches ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$, the name
// part of a qualified name.
func isTypeName(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		c := s[i]
		if !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// isSubdomain matches a DNS-1123 subdomain without its length limit:
// labels of [a-z0-9]([-a-z0-9]*[a-z0-9])? separated by single dots.
func isSubdomain(s string) bool {
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			continue
		}
		if !isLabel(s[start:i]) {
			return false
		}
		start = i + 1
	}
	return true
}

func isLabel(s string) bool {
	if s == "" || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isLowerAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool     { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isAlnum(c byte) bool      { return isLetter(c) || isDigit(c) }
func isLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || isDigit(c) }
