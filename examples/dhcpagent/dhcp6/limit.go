package dhcp6

import "errors"

// The bound on a reply's size. A server that answers a small message with
// a large one lends its bandwidth to whoever forges the small one's
// source, and a message with 1,000 IA_NAs (16 KB) would get a 48 KB REPLY.
// So a reply is at most MaxReplyFactor times the size of the message that
// caused it, and never more than MaxReplySize bytes; a reply over either
// is refused (ErrReplyTooLarge), not cut.
//
// The factor leaves room for what a real client's smallest message gets:
// a SOLICIT of 34 bytes (a DUID-LL and an empty IA_NA, no ORO) may get an
// ADVERTISE of 272 bytes, which holds the identifiers, the address, and
// about 150 bytes of the pool's options; a dhclient or dhcpcd SOLICIT
// (60 to 90 bytes, with an ORO and an elapsed time) gets 480 to 720. The
// size cap is the IPv6 minimum MTU less the IPv6 and UDP headers, so no
// reply needs fragmenting on any IPv6 link.
const (
	MaxReplyFactor = 8
	MaxReplySize   = 1280 - 40 - 8
)

// ErrReplyTooLarge: the encoded reply is over ReplyLimit of its request.
var ErrReplyTooLarge = errors.New("dhcp6: reply larger than the request allows")

// ReplyLimit is the largest reply to a message of requestLen bytes (the
// UDP payload, relay headers included): MaxReplyFactor times it, at most
// MaxReplySize. A host that sends 1,000 IA_NAs in 16 KB must not get 48 KB
// sent where it says. The decision builds the reply; the server, which has
// both sizes, applies the limit.
func ReplyLimit(requestLen int) int {
	return min(MaxReplyFactor*max(requestLen, 0), MaxReplySize)
}
