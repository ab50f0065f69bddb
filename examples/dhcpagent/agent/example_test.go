package agent_test

import (
	"fmt"
	"os"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/agent"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
)

// Loading a new version of the pool swaps the table in and returns the
// plan from the one it replaces.
func ExampleAgent_Apply() {
	data, err := os.ReadFile("../poolsource/testdata/pool.json") // the pool source's example pool
	if err != nil {
		panic(err)
	}
	a := agent.New(nil)
	first, err := poolsource.DecodePool(data)
	if err != nil {
		panic(err)
	}
	if _, err := a.Apply(first); err != nil {
		panic(err)
	}
	pool, err := poolsource.DecodePool(data) // the next version
	if err != nil {
		panic(err)
	}
	// The operator moves one VM and gives another address to a new one.
	delete(pool.Status.Allocated, "10.20.0.11")
	pool.Status.Allocated["10.20.0.12"] = "52:54:00:aa:bb:02"
	pool.Status.Allocated["10.20.0.13"] = "52:54:00:aa:bb:03"

	u, err := a.Apply(pool)
	if err != nil {
		panic(err)
	}
	fmt.Println(u.Pool, "leases:", u.Leases)
	for _, l := range u.Plan.Add {
		fmt.Println("add   ", l)
	}
	for _, c := range u.Plan.Update {
		fmt.Println("update", c.Old, "->", c.New.Addr)
	}
	for _, l := range u.Plan.Remove {
		fmt.Println("remove", l)
	}
	// Output:
	// default/lab leases: 3
	// add    52:54:00:aa:bb:03 10.20.0.13/24
	// update 52:54:00:aa:bb:02 10.20.0.11/24 -> 10.20.0.12
}
