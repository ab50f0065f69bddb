// Package poolsource is where the agent's pools come from, and nothing
// else: the IPPool object as JSON ([Pool], the operator's v1alpha1 spec
// embedded, so whatever the IPPool's spec gains comes along), read from a
// watched file ([File]) or from the API server ([IPPoolWatch]). Each
// source delivers every new version of the pool to an [Apply], the
// server's load, which builds its lease tables from it (the DHCPv4 table
// today; a DHCPv6 table from the same Pool later). [Pool.Config] converts
// the spec to the core's ipam.Spec and leasestore.Options, and the rest
// is the server's. One DHCPv4 rule is still here: Config refuses a cidr
// or serverIP that is not IPv4, and a pool without serverIP (the DHCPv4
// server identifier). It is to move to the server when the pool gains
// its IPv6 part, so that a pool that only a DHCPv6 server can serve
// converts here too.
package poolsource

// Apply is what a source delivers each version of the pool to: the
// server's load (agent.Agent.Accept), which builds its tables from the
// pool, swaps them in and logs the outcome. An error says that the
// version was not taken; the source logs nothing more about it.
type Apply func(*Pool) error
