// Package poolsource is where the agent's pools come from, and nothing
// else: the IPPool object as JSON ([Pool], the operator's v1alpha1 spec
// embedded, so whatever the IPPool's spec gains comes along), read from a
// watched file ([File]) or, through [Deliver], from the API server
// (package apiserver's IPPoolWatch, which holds the client-go side). Each
// source delivers every new version of the pool to an [Apply], the
// server's load, which builds its lease tables from it (the DHCPv4 table,
// and the DHCPv6 table of a dual-stack pool). [Pool.Config] converts the
// spec to the core's ipam.Spec and leasestore.Options, [Pool.Config6]
// its IPv6 part (spec.ipv6, status.ipv6.allocated), and the rest is the
// server's. One DHCPv4 rule is still here: Config refuses a cidr or
// serverIP that is not IPv4, and a pool without serverIP (the DHCPv4
// server identifier). So the agent serves DHCPv6 for the IPv6 part of a
// dual-stack pool only; an IPv6-only pool (cidr IPv6, no spec.ipv6) is
// refused until that rule moves to the server.
package poolsource

// Apply is what a source delivers each version of the pool to: the
// server's load (agent.Agent.Apply, through Loads), which builds its
// tables from the pool, swaps them in and logs the outcome. An error says
// that the version was not taken; the source logs nothing more about it.
type Apply func(*Pool) error

// Loads is the Apply of a load that also reports what it did, such as
// agent.Agent.Apply: the report is the load's to log, not the source's.
func Loads[U any](load func(*Pool) (U, error)) Apply {
	return func(p *Pool) error {
		_, err := load(p)
		return err
	}
}
