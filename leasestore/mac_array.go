package leasestore

// MACFrom6 returns the MAC of the six bytes b, as a DHCPv6 DUID or an
// EUI-64 interface identifier holds them. It does not allocate.
func MACFrom6(b [6]byte) MAC { return MAC{b: b} }

// As6 returns the six bytes of m. It does not allocate.
func (m MAC) As6() [6]byte { return m.b }
