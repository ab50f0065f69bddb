// Package dhcp4 is the DHCPv4 decision of the agent, and nothing else: a
// request and a [Table] in, a reply out, as a pure function. It opens no
// socket, reads no clock (the caller says what "now" is, in Table.Now)
// and counts nothing; the server around it (package agent) does the I/O,
// and package dhcp4wire encodes the lease's options and fits them to the
// client's limit.
//
// [ReplyTo] answers DISCOVER with an OFFER, REQUEST with an ACK or a NAK
// (also to a MAC without a lease that asks for an address of the prefix:
// the agent is authoritative for it), INFORM with an ACK of the pool's
// options; an unknown client's DISCOVER and anything else get no answer,
// and the error says why. [Declined] and [Released] check a DECLINE and a
// RELEASE against the Table. [Destination] decides where a reply is sent
// (RFC 2131, section 4.1, with NAKs to ciaddr as Kea sends them).
//
// A reply is never larger than the client accepts (dhcp4wire.ReplyLimit);
// when its options do not all fit, it keeps them in the order of priority
// [ReplyTo] documents, and [Trim] says what it left out.
//
// For a server that answers without allocating, [Decide] builds the reply
// in a reused [Scratch], copies the leases' options from the
// [OptionCache] the server keeps per table version (Table.Cache), and
// reports an ACK's binding in an [Ack]; [ReplyTo] is the same code in new
// memory. Scratch, OptionCache and Trim are dhcp4wire's types.
package dhcp4
