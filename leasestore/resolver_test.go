package leasestore_test

import (
	"context"
	"net"
	"testing"
)

// withoutResolver makes every name resolution through net.DefaultResolver
// fail the test until it ends.
func withoutResolver(t *testing.T) {
	saved := net.DefaultResolver
	net.DefaultResolver = &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			t.Errorf("name resolution attempted: dial %s %s", network, address)
			return nil, &net.OpError{Op: "dial", Net: network, Err: net.UnknownNetworkError("forbidden in tests")}
		},
	}
	t.Cleanup(func() { net.DefaultResolver = saved })
}
