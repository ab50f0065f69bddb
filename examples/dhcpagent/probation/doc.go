// Package probation holds back the addresses clients declined, for a
// period, and remembers who declined each: the state behind RFC 2131
// section 4.3.3 ("the server MUST mark the network address as not
// available"), as data with time as a parameter ([Set]). It reads no
// clock and knows nothing of DHCP messages, so tests inject "now" and
// the pure decision (dhcp4.ReplyTo, dhcp6.Decide) reads it as of a time it is
// given.
//
// It is protocol-neutral: addresses are netip.Addr and clients are MACs.
// DHCPv6 (RFC 8415 section 18.4.7: a DECLINE makes the server mark the
// address as declined) uses the same Set for its addresses; a DUID-keyed
// client would need the key generalized, not a second Set.
package probation
