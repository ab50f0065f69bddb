// Package fieldcases names the configurations real users run
// (docs/field-cases.md, a copy of the project's FIELD-CASES.md) and the
// packages that decide something about each, so that a test can fail when
// one of those packages stops running a case. Only tests use it.
package fieldcases

// Case is one configuration of docs/field-cases.md.
type Case struct {
	// Number and Title are the case's heading, "## Number. Title".
	Number int
	Title  string
	// Test is the name of the test function that runs the case in each of
	// Packages.
	Test string
	// Packages are the folders, relative to the repository's root, whose
	// tests must run the case: every package and adapter that decides
	// something about it.
	Packages []string
}

// All is every case of docs/field-cases.md, in its order.
var All = []Case{
	{
		Number: 1,
		Title:  "Two NICs, one DHCP and one static /32 uplink in 240.0.0.0/4 (Cluster API, SMTX ELF)",
		Test:   "TestFieldCase1DHCPAndStatic240Uplink",
		Packages: []string{
			"readiness",         // which of the four reports is ready
			"examples/provider", // the machine's Ready condition on the API server
		},
	},
	{
		Number: 2,
		Title:  "A Harvester managed-DHCP IPPool (vm-dhcp-controller)",
		Test:   "TestFieldCase2HarvesterIPPool",
		Packages: []string{
			"ipam",                         // the pool from the field's strings, counts, restore
			"leasestore",                   // the lease table and options the agent serves
			"examples/operator/controller", // the IPPool, its status, the paused pool's conditions
			"examples/dhcpagent/agent",     // a real client bound to .120
		},
	},
}
