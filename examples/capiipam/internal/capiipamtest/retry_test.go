package capiipamtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

var claims = schema.GroupResource{Group: "ipam.cluster.x-k8s.io", Resource: "ipaddressclaims"}

func TestTransient(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"server timeout", apierrors.NewServerTimeout(claims, "create", 1), true},
		{"etcd request timed out", apierrors.NewInternalError(errors.New("etcdserver: request timed out")), true},
		{"too many requests", apierrors.NewTooManyRequests("slow down", 1), true},
		{"service unavailable", apierrors.NewServiceUnavailable("starting"), true},
		{"timeout", apierrors.NewTimeoutError("request did not complete", 1), true},
		{"connection reset", fmt.Errorf("post: %w", syscall.ECONNRESET), true},
		{"EOF", fmt.Errorf("post: %w", io.ErrUnexpectedEOF), true},
		{"already exists", apierrors.NewAlreadyExists(claims, "m-0001"), false},
		{"not found", apierrors.NewNotFound(claims, "m-0001"), false},
		{"invalid", apierrors.NewBadRequest("spec.poolRef: required"), false},
		{"conflict", apierrors.NewConflict(claims, "m-0001", errors.New("changed")), false},
		{"not an API error", errors.New("no kind is registered"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Transient(tt.err); got != tt.want {
				t.Errorf("Transient(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// TestCreateAllRetries: CreateAll creates every claim once although the
// API server fails some creates transiently, one of them after carrying
// it out (the retry then finds it: AlreadyExists); an answer that is not
// transient fails the test.
func TestCreateAllRetries(t *testing.T) {
	tests := []struct {
		name     string
		failures map[string]error // a claim's first create fails so
		landed   map[string]bool  // ... after the API server carried it out
		wantErr  bool
	}{
		{name: "no failure"},
		{name: "timeouts and a reset",
			failures: map[string]error{
				"m-0001": apierrors.NewServerTimeout(claims, "create", 1),
				"m-0004": apierrors.NewInternalError(errors.New("etcdserver: request timed out")),
				"m-0007": fmt.Errorf("post: %w", syscall.ECONNRESET),
			},
			landed: map[string]bool{"m-0004": true}},
		{name: "a real refusal fails",
			failures: map[string]error{"m-0002": apierrors.NewBadRequest("spec.poolRef: required")},
			wantErr:  true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex // the creates run on 16 goroutines
			failed := map[string]bool{}
			c := fake.NewClientBuilder().WithScheme(Scheme).WithInterceptorFuncs(interceptor.Funcs{
				Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
					err, ok := tt.failures[obj.GetName()]
					mu.Lock()
					first := ok && !failed[obj.GetName()]
					failed[obj.GetName()] = true
					mu.Unlock()
					if !first {
						return c.Create(ctx, obj, opts...)
					}
					if tt.landed[obj.GetName()] {
						if err := c.Create(ctx, obj.DeepCopyObject().(client.Object), opts...); err != nil {
							return err
						}
					}
					return err
				},
			}).Build()
			s := ClaimSet{NS: "ns", GlobalPool: "ns-v6", N: 8}
			err := s.createAll(c, 0, s.N)
			if (err != nil) != tt.wantErr {
				t.Fatalf("createAll: %v, want an error: %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			var list ipamv1.IPAddressClaimList
			if err := c.List(context.Background(), &list); err != nil {
				t.Fatal(err)
			}
			var got, want []string
			for _, cl := range list.Items {
				got = append(got, cl.Name)
			}
			for i := range s.N {
				want = append(want, s.Claim(i).Name)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("claims (-want +got):\n%s", diff)
			}
		})
	}
}
