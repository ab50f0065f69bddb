package dhcp4

import "github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4wire"

// The codec's types that the decision's API names. Encoding a lease's
// options, fitting them to the client's limit and the memory a reply is
// built in belong to package dhcp4wire; these aliases let a caller of
// [ReplyTo], [Decide] and [Table] keep writing dhcp4.Trim, dhcp4.Scratch
// and dhcp4.OptionCache.
type (
	// Trim is what a reply left out so that it fits the client's limit
	// (see [dhcp4wire.Fit]).
	Trim = dhcp4wire.Trim
	// Cut is one option a reply dropped or cut short.
	Cut = dhcp4wire.Cut
	// Scratch is the memory one reply is built in (see [Decide]).
	Scratch = dhcp4wire.Scratch
	// OptionCache keeps a table's lease options encoded (see Table.Cache).
	OptionCache = dhcp4wire.OptionCache
)
