package readiness

// canonicalMAC returns s as a lowercase colon-separated EUI-48 MAC, and
// whether s is one. It accepts aa:bb:cc:dd:ee:ff, aa-bb-cc-dd-ee-ff and
// aabb.ccdd.eeff in any case, nothing else. It does not allocate on failure.
func canonicalMAC(s string) (string, bool) {
	var b [6]byte
	switch len(s) {
	case 17: // aa:bb:cc:dd:ee:ff or aa-bb-cc-dd-ee-ff
		sep := s[2]
		if sep != ':' && sep != '-' {
			return "", false
		}
		for i := range 6 {
			if i > 0 && s[3*i-1] != sep {
				return "", false
			}
			v, ok := hexByte(s[3*i], s[3*i+1])
			if !ok {
				return "", false
			}
			b[i] = v
		}
	case 14: // aabb.ccdd.eeff
		for g := range 3 {
			if g > 0 && s[5*g-1] != '.' {
				return "", false
			}
			for j := range 2 {
				v, ok := hexByte(s[5*g+2*j], s[5*g+2*j+1])
				if !ok {
					return "", false
				}
				b[2*g+j] = v
			}
		}
	default:
		return "", false
	}
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 17)
	for i, v := range b {
		if i > 0 {
			out = append(out, ':')
		}
		out = append(out, digits[v>>4], digits[v&0xf])
	}
	return string(out), true
}

func hexByte(hi, lo byte) (byte, bool) {
	h, ok1 := hexDigit(hi)
	l, ok2 := hexDigit(lo)
	return h<<4 | l, ok1 && ok2
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
