module github.com/vmnetkit/vmnetkit

go 1.23

require (
	github.com/google/go-cmp v0.6.0
	go4.org/netipx v0.0.0-20260823151212-3075585bcbeb
	pgregory.net/rapid v1.3.0
)
