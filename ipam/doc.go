// Package ipam allocates IP addresses to owners (VM NICs) from an IPv4 or
// IPv6 CIDR, within an optional start/end range, never handing out excluded
// or reserved addresses. Its memory follows what is allocated, never the size
// of the range, and a pool's snapshot restores exactly.
package ipam
