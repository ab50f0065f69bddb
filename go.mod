module github.com/vmnetkit/vmnetkit

go 1.26

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	go4.org/netipx v0.0.0-20260823151212-3075585bcbeb // indirect
	pgregory.net/rapid v1.3.0 // indirect
)
