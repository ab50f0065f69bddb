package dhcp6wire

import (
	"errors"
	"strings"
)

// ErrDomainName is returned for a name that cannot be written as, or a
// domain list that does not read as, uncompressed RFC 1035 names.
var ErrDomainName = errors.New("dhcp6wire: malformed domain name")

// AppendDomainList appends names in the wire form of the domain search
// list option (RFC 8415 section 10, RFC 1035 section 3.1, uncompressed):
// each name as its labels, each a length byte and its bytes, then a zero
// byte. A trailing dot is allowed. A name with an empty label or a label
// over 63 bytes, or over 255 bytes on the wire, is ErrDomainName, and b
// is returned unchanged.
func AppendDomainList(b []byte, names []string) ([]byte, error) {
	start := len(b)
	for _, n := range names {
		n = strings.TrimSuffix(n, ".")
		from := len(b)
		for len(n) > 0 {
			label, rest, _ := strings.Cut(n, ".")
			if label == "" || len(label) > 63 {
				return b[:start], ErrDomainName
			}
			b = append(b, byte(len(label)))
			b = append(b, label...)
			n = rest
		}
		b = append(b, 0)
		if len(b)-from > 255 || len(b)-from == 1 {
			return b[:start], ErrDomainName
		}
	}
	return b, nil
}

// ParseDomainList returns the names of a domain search list in wire form,
// without trailing dots, or ErrDomainName: a compression pointer (not
// allowed in DHCPv6), a label running past the end, a name of more than
// 255 bytes, or a last name without its zero byte.
func ParseDomainList(b []byte) ([]string, error) {
	var names []string
	var name []byte
	from := 0
	for i := 0; i < len(b); {
		n := int(b[i])
		i++
		if n == 0 {
			names = append(names, string(name))
			name, from = name[:0], i
			continue
		}
		if n > 63 || n > len(b)-i || i+n-from > 255 {
			return nil, ErrDomainName
		}
		if len(name) > 0 {
			name = append(name, '.')
		}
		name = append(name, b[i:i+n]...)
		i += n
	}
	if from != len(b) {
		return nil, ErrDomainName
	}
	return names, nil
}
