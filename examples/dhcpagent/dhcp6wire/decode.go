package dhcp6wire

import (
	"encoding/binary"
	"errors"
	"net/netip"
)

// MaxRelays is the most relay levels Decode accepts around a message:
// RFC 8415 (section 7.6) lets a relay forward up to HOP_COUNT_LIMIT, 8,
// hops, and a deployment may raise that limit; 32 is far beyond any.
const MaxRelays = 32

// maxDUID is the longest DUID: a 2-byte type and at most 128 bytes (RFC
// 8415 section 11.1).
const maxDUID = 130

// Reasons Decode rejects a datagram. They are plain values, not
// formatted per message, so that a flood of garbage costs no allocation.
var (
	ErrShort         = errors.New("dhcp6wire: message shorter than its header")
	ErrOptionLength  = errors.New("dhcp6wire: option longer than the rest of the message")
	ErrOptionSize    = errors.New("dhcp6wire: option of an invalid length")
	ErrNoRelayMsg    = errors.New("dhcp6wire: relay message without a RELAY_MSG option")
	ErrTooManyRelays = errors.New("dhcp6wire: more relay levels than MaxRelays")
)

// Decode fills p with the datagram b: the relay headers, if b is a
// RELAY-FORW or RELAY-REPL, down to the client or server message inside
// them. On error, p holds a partial packet and must not be used.
//
// Every byte slice of p ALIASES b (capped at its length, so appending to
// one never writes into b): p is valid only while b is unchanged. p's
// slices are emptied and refilled, keeping their room, so that decoding
// one stream of messages into one Packet allocates only while that room
// grows.
//
// A message is rejected (malformed, RFC 8415 section 16) when an option
// runs past its end, when CLIENTID or SERVERID is shorter than 2 or longer
// than 130 bytes, when IA_NA, IAADDR, STATUS_CODE, ELAPSED_TIME, ORO, the
// DNS servers, the client link-layer address or a relay header is shorter
// than its fixed part or not a whole number of its entries, and when a
// relay message has no RELAY_MSG. A message type Decode does not know is
// read as a client or server message.
func Decode(p *Packet, b []byte) error {
	p.Relays = p.Relays[:0]
	for len(b) > 0 && MessageType(b[0]).IsRelay() {
		if len(p.Relays) == MaxRelays {
			return ErrTooManyRelays
		}
		p.Relays = append(p.Relays, Relay{})
		inner, err := decodeRelay(&p.Relays[len(p.Relays)-1], b)
		if err != nil {
			return err
		}
		b = inner
	}
	return DecodeMessage(&p.Msg, b)
}

// relayHeader is the length of a relay message's fixed part: type,
// hop count, link address and peer address.
const relayHeader = 34

// decodeRelay fills r with the relay message b and returns its RELAY_MSG.
func decodeRelay(r *Relay, b []byte) (inner []byte, err error) {
	if len(b) < relayHeader {
		return nil, ErrShort
	}
	*r = Relay{Type: MessageType(b[0]), HopCount: b[1], Options: r.Options[:0]}
	r.LinkAddr = netip.AddrFrom16([16]byte(b[2:18]))
	r.PeerAddr = netip.AddrFrom16([16]byte(b[18:34]))
	found := false
	for o := b[relayHeader:]; len(o) > 0; {
		code, v, rest, err := nextOption(o)
		if err != nil {
			return nil, err
		}
		o = rest
		switch code {
		case OptionRelayMsg:
			if !found {
				inner, found = v, true
			}
		case OptionInterfaceID:
			if r.InterfaceID == nil {
				r.InterfaceID = v
			}
		case OptionClientLinkLayer:
			if len(v) < 2 {
				return nil, ErrOptionSize
			}
			if r.LinkLayerAddr == nil {
				r.LinkLayerType = binary.BigEndian.Uint16(v)
				r.LinkLayerAddr = v[2:]
			}
		default:
			r.Options = append(r.Options, Option{Code: code, Data: v})
		}
	}
	if !found {
		return nil, ErrNoRelayMsg
	}
	return inner, nil
}

// nextOption splits the option at the start of b from the rest.
func nextOption(b []byte) (code OptionCode, v, rest []byte, err error) {
	if len(b) < 4 {
		return 0, nil, nil, ErrOptionLength
	}
	code = OptionCode(binary.BigEndian.Uint16(b))
	n := int(binary.BigEndian.Uint16(b[2:]))
	if n > len(b)-4 {
		return 0, nil, nil, ErrOptionLength
	}
	return code, b[4 : 4+n : 4+n], b[4+n:], nil
}

// DecodeMessage fills m with the client or server message b (no relay
// header), as Decode does.
func DecodeMessage(m *Message, b []byte) error {
	if len(b) < 4 {
		return ErrShort
	}
	*m = Message{
		Type:          MessageType(b[0]),
		TransactionID: [3]byte(b[1:4]),
		IANA:          m.IANA[:0],
		ORO:           m.ORO[:0],
		DNS:           m.DNS[:0],
		Options:       m.Options[:0],
		addrs:         m.addrs[:0],
	}
	seenORO, seenDNS, seenDomains := false, false, false
	for o := b[4:]; len(o) > 0; {
		code, v, rest, err := nextOption(o)
		if err != nil {
			return err
		}
		o = rest
		switch code {
		case OptionClientID, OptionServerID:
			if len(v) < 2 || len(v) > maxDUID {
				return ErrOptionSize
			}
			if code == OptionClientID && m.ClientID == nil {
				m.ClientID = v
			} else if code == OptionServerID && m.ServerID == nil {
				m.ServerID = v
			}
		case OptionIANA:
			if err := m.decodeIANA(v); err != nil {
				return err
			}
		case OptionStatusCode:
			if err := decodeStatus(&m.Status, v); err != nil {
				return err
			}
		case OptionORO:
			if len(v)%2 != 0 {
				return ErrOptionSize
			}
			if !seenORO {
				seenORO = true
				for i := 0; i < len(v); i += 2 {
					m.ORO = append(m.ORO, OptionCode(binary.BigEndian.Uint16(v[i:])))
				}
			}
		case OptionElapsedTime:
			if len(v) != 2 {
				return ErrOptionSize
			}
			if !m.HasElapsedTime {
				m.HasElapsedTime, m.ElapsedTime = true, binary.BigEndian.Uint16(v)
			}
		case OptionRapidCommit:
			if len(v) != 0 {
				return ErrOptionSize
			}
			m.RapidCommit = true
		case OptionDNSServers:
			if len(v)%16 != 0 {
				return ErrOptionSize
			}
			if !seenDNS {
				seenDNS = true
				for i := 0; i < len(v); i += 16 {
					m.DNS = append(m.DNS, netip.AddrFrom16([16]byte(v[i:])))
				}
			}
		case OptionDomainList:
			if !seenDomains {
				seenDomains, m.DomainList = true, v
			}
		default:
			m.Options = append(m.Options, Option{Code: code, Data: v})
		}
	}
	return nil
}

// decodeStatus fills s with the STATUS_CODE option v, unless s is
// present already.
func decodeStatus(s *Status, v []byte) error {
	if len(v) < 2 {
		return ErrOptionSize
	}
	if !s.Present {
		*s = Status{Present: true, Code: StatusCode(binary.BigEndian.Uint16(v)), Message: v[2:]}
	}
	return nil
}

// decodeIANA appends the IA_NA option v to m.IANA, its addresses to
// m.addrs.
func (m *Message) decodeIANA(v []byte) error {
	if len(v) < 12 {
		return ErrOptionSize
	}
	ia := IANA{
		IAID: binary.BigEndian.Uint32(v),
		T1:   binary.BigEndian.Uint32(v[4:]),
		T2:   binary.BigEndian.Uint32(v[8:]),
	}
	first := len(m.addrs)
	for o := v[12:]; len(o) > 0; {
		code, w, rest, err := nextOption(o)
		if err != nil {
			return err
		}
		o = rest
		switch code {
		case OptionIAAddr:
			if len(w) < 24 {
				return ErrOptionSize
			}
			a := IAAddr{
				Addr:      netip.AddrFrom16([16]byte(w)),
				Preferred: binary.BigEndian.Uint32(w[16:]),
				Valid:     binary.BigEndian.Uint32(w[20:]),
			}
			for p := w[24:]; len(p) > 0; {
				code, x, rest, err := nextOption(p)
				if err != nil {
					return err
				}
				p = rest
				if code == OptionStatusCode {
					if err := decodeStatus(&a.Status, x); err != nil {
						return err
					}
				}
			}
			m.addrs = append(m.addrs, a)
		case OptionStatusCode:
			if err := decodeStatus(&ia.Status, w); err != nil {
				return err
			}
		}
	}
	if len(m.addrs) > first {
		ia.Addrs = m.addrs[first:len(m.addrs):len(m.addrs)]
	}
	m.IANA = append(m.IANA, ia)
	return nil
}
