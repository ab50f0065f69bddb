package dhcp4

import (
	"errors"
	"fmt"
)

// Reasons [ReplyTo], [Declined] and [Released] give for not answering; callers branch on them with
// [errors.Is]. Every one of them means the agent stays silent, as RFC 2131
// asks of a server that has nothing to say to a client.
var (
	// ErrNoTable: no lease table has been loaded yet.
	ErrNoTable = errors.New("no lease table loaded")
	// ErrNotRequest: the message is not a BOOTREQUEST.
	ErrNotRequest = errors.New("not a BOOTREQUEST")
	// ErrHardwareAddr: the client hardware address is not a 6-byte Ethernet MAC.
	ErrHardwareAddr = errors.New("client hardware address is not an Ethernet MAC")
	// ErrUnknownClient: the table has no lease for the client's MAC.
	ErrUnknownClient = errors.New("no lease for this MAC")
	// ErrNotIPv4: the client's lease is not an IPv4 address, or the lease has
	// no IPv4 server identifier to answer with.
	ErrNotIPv4 = errors.New("lease is not served over DHCPv4")
	// ErrOtherServer: a REQUEST in the SELECTING state names another server.
	ErrOtherServer = errors.New("client selected another server")
	// ErrPeerSelected: a REQUEST in the SELECTING state names a peer (see
	// Table.Peers), which answers it; it is also an [ErrOtherServer].
	ErrPeerSelected = fmt.Errorf("%w: a peer's offer", ErrOtherServer)
	// ErrNoAddress: a REQUEST names no address at all (no requested IP
	// address option and no ciaddr), so there is nothing to confirm or deny.
	ErrNoAddress = errors.New("request names no address")
	// ErrMessageType: the message type is one the agent does not answer
	// (RELEASE, DECLINE, or a reply type), or not the one expected.
	ErrMessageType = errors.New("message type not answered")
	// ErrOnProbation: the client's address was declined and is on
	// probation (see probation.Set), so it is not offered.
	ErrOnProbation = errors.New("address on probation after a decline")
	// ErrNotServed: an INFORM from an address outside the served prefix.
	ErrNotServed = errors.New("address outside the served prefix")
	// ErrNotLeased: a DECLINE or RELEASE names an address the table does
	// not give to that MAC.
	ErrNotLeased = errors.New("address not leased to this MAC")
)
