package dhcp6wire

import (
	"encoding/binary"
)

// Append appends the datagram of p to b and returns the extended buffer:
// each relay header in order, outermost first, with its INTERFACE_ID, its
// client link-layer address (when LinkLayerAddr is not nil), its other
// Options and a RELAY_MSG holding the next level; then p.Msg, as
// AppendMessage writes it. It allocates only when b has too little room.
//
// Each option must be shorter than 65,536 bytes, the most its length
// field counts; Decode never gives a longer one.
func Append(b []byte, p *Packet) []byte {
	return appendLevel(b, p.Relays, &p.Msg)
}

func appendLevel(b []byte, relays []Relay, m *Message) []byte {
	if len(relays) == 0 {
		return AppendMessage(b, m)
	}
	r := &relays[0]
	b = append(b, byte(r.Type), r.HopCount)
	link, peer := r.LinkAddr.As16(), r.PeerAddr.As16()
	b = append(b, link[:]...)
	b = append(b, peer[:]...)
	if r.InterfaceID != nil {
		b = appendOption(b, OptionInterfaceID, r.InterfaceID)
	}
	if r.LinkLayerAddr != nil {
		b = appendHeader(b, OptionClientLinkLayer, 2+len(r.LinkLayerAddr))
		b = binary.BigEndian.AppendUint16(b, r.LinkLayerType)
		b = append(b, r.LinkLayerAddr...)
	}
	for _, o := range r.Options {
		b = appendOption(b, o.Code, o.Data)
	}
	at := len(b)
	b = appendHeader(b, OptionRelayMsg, 0)
	b = appendLevel(b, relays[1:], m)
	return patchLength(b, at)
}

// AppendMessage appends the client or server message m to b and returns
// the extended buffer: its type and transaction id, then its options in
// this order: CLIENTID, SERVERID, each IA_NA (its IAADDRs, each with its
// status when present, then its status when present), STATUS_CODE when
// present, ORO, ELAPSED_TIME, RAPID_COMMIT, DNS servers, domain list
// (each only when set: a non-nil DUID, a non-empty list), then m.Options
// in order. It allocates only when b has too little room.
func AppendMessage(b []byte, m *Message) []byte {
	b = append(b, byte(m.Type))
	b = append(b, m.TransactionID[:]...)
	if m.ClientID != nil {
		b = appendOption(b, OptionClientID, m.ClientID)
	}
	if m.ServerID != nil {
		b = appendOption(b, OptionServerID, m.ServerID)
	}
	for i := range m.IANA {
		b = appendIANA(b, &m.IANA[i])
	}
	b = appendStatus(b, &m.Status)
	if len(m.ORO) > 0 {
		b = appendHeader(b, OptionORO, 2*len(m.ORO))
		for _, c := range m.ORO {
			b = binary.BigEndian.AppendUint16(b, uint16(c))
		}
	}
	if m.HasElapsedTime {
		b = appendHeader(b, OptionElapsedTime, 2)
		b = binary.BigEndian.AppendUint16(b, m.ElapsedTime)
	}
	if m.RapidCommit {
		b = appendHeader(b, OptionRapidCommit, 0)
	}
	if len(m.DNS) > 0 {
		b = appendHeader(b, OptionDNSServers, 16*len(m.DNS))
		for _, a := range m.DNS {
			a16 := a.As16()
			b = append(b, a16[:]...)
		}
	}
	if len(m.DomainList) > 0 {
		b = appendOption(b, OptionDomainList, m.DomainList)
	}
	for _, o := range m.Options {
		b = appendOption(b, o.Code, o.Data)
	}
	return b
}

func appendIANA(b []byte, ia *IANA) []byte {
	at := len(b)
	b = appendHeader(b, OptionIANA, 0)
	b = binary.BigEndian.AppendUint32(b, ia.IAID)
	b = binary.BigEndian.AppendUint32(b, ia.T1)
	b = binary.BigEndian.AppendUint32(b, ia.T2)
	for i := range ia.Addrs {
		a := &ia.Addrs[i]
		from := len(b)
		b = appendHeader(b, OptionIAAddr, 0)
		a16 := a.Addr.As16()
		b = append(b, a16[:]...)
		b = binary.BigEndian.AppendUint32(b, a.Preferred)
		b = binary.BigEndian.AppendUint32(b, a.Valid)
		b = appendStatus(b, &a.Status)
		b = patchLength(b, from)
	}
	b = appendStatus(b, &ia.Status)
	return patchLength(b, at)
}

func appendStatus(b []byte, s *Status) []byte {
	if !s.Present {
		return b
	}
	b = appendHeader(b, OptionStatusCode, 2+len(s.Message))
	b = binary.BigEndian.AppendUint16(b, uint16(s.Code))
	return append(b, s.Message...)
}

func appendHeader(b []byte, code OptionCode, n int) []byte {
	return binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(b, uint16(code)), uint16(n))
}

func appendOption(b []byte, code OptionCode, v []byte) []byte {
	return append(appendHeader(b, code, len(v)), v...)
}

// patchLength sets the length of the option whose header starts at
// b[at:] to the bytes that follow that header.
func patchLength(b []byte, at int) []byte {
	binary.BigEndian.PutUint16(b[at+2:], uint16(len(b)-at-4))
	return b
}
