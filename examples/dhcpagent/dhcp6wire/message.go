package dhcp6wire

import (
	"net/netip"
	"strconv"
)

// MessageType is a DHCPv6 message type (RFC 8415 section 7.3).
type MessageType uint8

// Message types.
const (
	Solicit            MessageType = 1
	Advertise          MessageType = 2
	Request            MessageType = 3
	Confirm            MessageType = 4
	Renew              MessageType = 5
	Rebind             MessageType = 6
	Reply              MessageType = 7
	Release            MessageType = 8
	Decline            MessageType = 9
	Reconfigure        MessageType = 10
	InformationRequest MessageType = 11
	RelayForw          MessageType = 12
	RelayRepl          MessageType = 13
)

var typeNames = [...]string{
	Solicit: "SOLICIT", Advertise: "ADVERTISE", Request: "REQUEST", Confirm: "CONFIRM",
	Renew: "RENEW", Rebind: "REBIND", Reply: "REPLY", Release: "RELEASE", Decline: "DECLINE",
	Reconfigure: "RECONFIGURE", InformationRequest: "INFORMATION-REQUEST",
	RelayForw: "RELAY-FORW", RelayRepl: "RELAY-REPL",
}

// String returns the RFC's name of t, "SOLICIT", or "type N" for another.
func (t MessageType) String() string {
	if int(t) < len(typeNames) && typeNames[t] != "" {
		return typeNames[t]
	}
	return "type " + strconv.Itoa(int(t))
}

// IsRelay reports whether t is RELAY-FORW or RELAY-REPL.
func (t MessageType) IsRelay() bool { return t == RelayForw || t == RelayRepl }

// OptionCode is a DHCPv6 option code (RFC 8415 section 21).
type OptionCode uint16

// Option codes this package reads or writes.
const (
	OptionClientID        OptionCode = 1
	OptionServerID        OptionCode = 2
	OptionIANA            OptionCode = 3
	OptionIATA            OptionCode = 4
	OptionIAAddr          OptionCode = 5
	OptionORO             OptionCode = 6
	OptionElapsedTime     OptionCode = 8
	OptionRelayMsg        OptionCode = 9
	OptionUnicast         OptionCode = 12
	OptionStatusCode      OptionCode = 13
	OptionRapidCommit     OptionCode = 14
	OptionInterfaceID     OptionCode = 18
	OptionDNSServers      OptionCode = 23
	OptionDomainList      OptionCode = 24
	OptionIAPD            OptionCode = 25
	OptionClientLinkLayer OptionCode = 79
)

// StatusCode is the code of a STATUS_CODE option (RFC 8415 section 21.13).
type StatusCode uint16

// Status codes.
const (
	Success       StatusCode = 0
	UnspecFail    StatusCode = 1
	NoAddrsAvail  StatusCode = 2
	NoBinding     StatusCode = 3
	NotOnLink     StatusCode = 4
	UseMulticast  StatusCode = 5
	NoPrefixAvail StatusCode = 6
)

var statusNames = [...]string{
	Success: "Success", UnspecFail: "UnspecFail", NoAddrsAvail: "NoAddrsAvail", NoBinding: "NoBinding",
	NotOnLink: "NotOnLink", UseMulticast: "UseMulticast", NoPrefixAvail: "NoPrefixAvail",
}

// String returns the RFC's name of c, "NoAddrsAvail", or "status N".
func (c StatusCode) String() string {
	if int(c) < len(statusNames) {
		return statusNames[c]
	}
	return "status " + strconv.Itoa(int(c))
}

// Status is a STATUS_CODE option. The zero Status is absent: Present
// tells an absent option from an explicit Success.
type Status struct {
	Present bool
	Code    StatusCode
	Message []byte // UTF-8 text, for humans; aliases the datagram after Decode
}

// IAAddr is an IAADDR option (RFC 8415 section 21.6): an address and its
// lifetimes in seconds (0xffffffff is infinity), and its status, if any.
type IAAddr struct {
	Addr      netip.Addr
	Preferred uint32
	Valid     uint32
	Status    Status
}

// IANA is an IA_NA option (RFC 8415 section 21.4): the identity
// association's IAID, its T1 and T2 in seconds, its addresses and its
// status, if any. Options other than IAADDR and STATUS_CODE inside it are
// skipped.
type IANA struct {
	IAID   uint32
	T1, T2 uint32
	Addrs  []IAAddr
	Status Status
}

// Option is an option this package does not read, verbatim.
type Option struct {
	Code OptionCode
	Data []byte // aliases the datagram after Decode
}

// Message is a DHCPv6 client or server message (RFC 8415 section 8). An
// option that is absent is the zero value of its field: a nil ClientID
// or ServerID (Decode never gives an empty one: a DUID has at least two
// bytes), no IA, a false HasElapsedTime or RapidCommit, an empty list.
// When a message holds an option that may appear once more than once,
// Decode keeps the first and skips the others.
type Message struct {
	Type           MessageType
	TransactionID  [3]byte
	ClientID       []byte // the client's DUID
	ServerID       []byte // the server's DUID
	IANA           []IANA
	Status         Status       // top-level STATUS_CODE
	ORO            []OptionCode // the options the client requests
	HasElapsedTime bool
	ElapsedTime    uint16 // hundredths of a second
	RapidCommit    bool
	DNS            []netip.Addr // option 23
	DomainList     []byte       // option 24 as on the wire: uncompressed RFC 1035 names; see AppendDomainList
	Options        []Option     // every other option, in order

	addrs []IAAddr // the room of every IANA's Addrs, reused by Decode
}

// Requests reports whether the message's ORO lists code.
func (m *Message) Requests(code OptionCode) bool {
	for _, c := range m.ORO {
		if c == code {
			return true
		}
	}
	return false
}

// Relay is one RELAY-FORW or RELAY-REPL header (RFC 8415 section 9) and
// its options other than RELAY_MSG, whose content is the next level of
// the Packet.
type Relay struct {
	Type     MessageType // RelayForw or RelayRepl
	HopCount uint8
	LinkAddr netip.Addr // the link the client is on, or unspecified
	PeerAddr netip.Addr // the client's (or the previous relay's) address
	// InterfaceID is the INTERFACE_ID option, nil when absent; a server
	// echoes it in its RELAY-REPL (section 19.3).
	InterfaceID []byte
	// LinkLayerType and LinkLayerAddr are the client link-layer address
	// option (RFC 6939): the hardware type (1 for Ethernet) and address
	// of the client, as the relay that received its message saw them;
	// LinkLayerAddr is nil when the option is absent.
	LinkLayerType uint16
	LinkLayerAddr []byte
	Options       []Option // every other option, in order
}

// Packet is one datagram: the relay headers, outermost first (none for a
// message a client sent on the server's link), and the client or server
// message inside them.
type Packet struct {
	Relays []Relay
	Msg    Message
}
