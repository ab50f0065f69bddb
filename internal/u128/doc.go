// Package u128 is unsigned 128-bit arithmetic for IP address offsets: an
// IPv6 address is a 128-bit integer, so an offset into an IPv6 range (and the
// count of its addresses) needs 128 bits. Every operation wraps modulo 2^128
// unless its doc comment says otherwise, and none allocates.
package u128
