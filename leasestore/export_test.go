package leasestore

// SetPackBits sets the widest key of a packed Store (64 in use) until the
// returned function restores it: below 24, every Store is wide; a few bits
// more make the tables of a small pool pack until a MAC or an address
// does not fit, so that every path between the two forms runs.
func SetPackBits(n uint) (restore func()) {
	old := packBits
	packBits = n
	return func() { packBits = old }
}

// Packed reports whether s holds its leases in the packed form.
func (s *Store) Packed() bool { return s.t.packed() }
