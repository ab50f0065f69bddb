package agent

import "errors"

// ErrNotJustBound is why the agent ignores a DECLINE that [dhcp4.Declined]
// accepts: a DECLINE of the client's own address that does not follow,
// within the decline window, an ACK of this agent that bound it. A client
// declines only the address it was just given (see the package
// documentation).
var ErrNotJustBound = errors.New("DECLINE not right after the ACK that bound the address")
