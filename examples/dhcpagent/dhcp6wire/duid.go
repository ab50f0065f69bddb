package dhcp6wire

import (
	"encoding/binary"
	"errors"
)

// DUIDType is the type of a DHCP unique identifier (RFC 8415 section 11).
type DUIDType uint16

// DUID types.
const (
	DUIDLLT  DUIDType = 1 // link-layer address plus time
	DUIDEN   DUIDType = 2 // enterprise number and identifier
	DUIDLL   DUIDType = 3 // link-layer address
	DUIDUUID DUIDType = 4 // UUID (RFC 6355)
)

// HWTypeEthernet is the hardware type of Ethernet (IANA ARP hardware
// types), the one DUID.MAC reads.
const HWTypeEthernet = 1

// ErrDUID is returned by ParseDUID for a DUID of a known type that is too
// short for its fixed part, or of a wrong length.
var ErrDUID = errors.New("dhcp6wire: malformed DUID")

// DUID is a parsed DHCP unique identifier. Type says which fields hold
// something: HWType and LinkLayer for DUID-LLT (with Time, seconds since
// 2000-01-01 UTC modulo 2^32) and DUID-LL; Enterprise and Identifier for
// DUID-EN; UUID for DUID-UUID; Identifier, everything after the type, for
// a type this package does not know. The byte slices alias the input.
type DUID struct {
	Type       DUIDType
	HWType     uint16
	Time       uint32
	LinkLayer  []byte
	Enterprise uint32
	Identifier []byte
	UUID       [16]byte
}

// ParseDUID parses b, a DUID as a CLIENTID or SERVERID option holds it.
// A DUID-LLT needs 8 bytes at least, a DUID-EN 6, a DUID-LL 4, a DUID-UUID
// exactly 18; any DUID at least 2. It does not allocate.
func ParseDUID(b []byte) (DUID, error) {
	if len(b) < 2 {
		return DUID{}, ErrDUID
	}
	d := DUID{Type: DUIDType(binary.BigEndian.Uint16(b))}
	switch d.Type {
	case DUIDLLT:
		if len(b) < 8 {
			return DUID{}, ErrDUID
		}
		d.HWType, d.Time, d.LinkLayer = binary.BigEndian.Uint16(b[2:]), binary.BigEndian.Uint32(b[4:]), b[8:]
	case DUIDEN:
		if len(b) < 6 {
			return DUID{}, ErrDUID
		}
		d.Enterprise, d.Identifier = binary.BigEndian.Uint32(b[2:]), b[6:]
	case DUIDLL:
		if len(b) < 4 {
			return DUID{}, ErrDUID
		}
		d.HWType, d.LinkLayer = binary.BigEndian.Uint16(b[2:]), b[4:]
	case DUIDUUID:
		if len(b) != 18 {
			return DUID{}, ErrDUID
		}
		d.UUID = [16]byte(b[2:])
	default:
		d.Identifier = b[2:]
	}
	return d, nil
}

// MAC returns the Ethernet MAC inside a DUID-LLT or DUID-LL of hardware
// type 1 and a 6-byte link-layer address, or false.
func (d DUID) MAC() ([6]byte, bool) {
	if (d.Type != DUIDLLT && d.Type != DUIDLL) || d.HWType != HWTypeEthernet || len(d.LinkLayer) != 6 {
		return [6]byte{}, false
	}
	return [6]byte(d.LinkLayer), true
}

// AppendDUIDLL appends the DUID-LL of the Ethernet address mac to b.
func AppendDUIDLL(b []byte, mac [6]byte) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(DUIDLL))
	b = binary.BigEndian.AppendUint16(b, HWTypeEthernet)
	return append(b, mac[:]...)
}

// AppendDUIDLLT appends the DUID-LLT of the Ethernet address mac and time
// t (seconds since 2000-01-01 UTC, modulo 2^32) to b.
func AppendDUIDLLT(b []byte, t uint32, mac [6]byte) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(DUIDLLT))
	b = binary.BigEndian.AppendUint16(b, HWTypeEthernet)
	b = binary.BigEndian.AppendUint32(b, t)
	return append(b, mac[:]...)
}
