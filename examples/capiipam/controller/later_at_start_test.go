package controller

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// queued records what a handler queued, and after how long.
type queued struct {
	queue // unused methods panic
	got   []queuedItem
}

type queuedItem struct {
	Name  string
	After time.Duration
}

func (q *queued) Add(r reconcile.Request) { q.got = append(q.got, queuedItem{r.Name, 0}) }
func (q *queued) AddAfter(r reconcile.Request, d time.Duration) {
	q.got = append(q.got, queuedItem{r.Name, d})
}

// TestLaterAtStart: of the IPAddresses a start lists, those not being
// deleted wait startCheckDelay; one being deleted, one created later and
// every update are queued at once; a delete queues nothing.
func TestLaterAtStart(t *testing.T) {
	now := metav1.Now()
	ip := func(deleting bool) *ipamv1.IPAddress {
		a := &ipamv1.IPAddress{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
		if deleting {
			a.DeletionTimestamp, a.Finalizers = &now, []string{AddressFinalizer}
		}
		return a
	}
	ctx := context.Background()
	tests := []struct {
		name string
		send func(*queued)
		want []queuedItem
	}{
		{"listed at start", func(q *queued) {
			laterAtStart{}.Create(ctx, event.CreateEvent{Object: ip(false), IsInInitialList: true}, q)
		}, []queuedItem{{"a", startCheckDelay}}},
		{"listed at start, being deleted", func(q *queued) {
			laterAtStart{}.Create(ctx, event.CreateEvent{Object: ip(true), IsInInitialList: true}, q)
		}, []queuedItem{{"a", 0}}},
		{"created later", func(q *queued) {
			laterAtStart{}.Create(ctx, event.CreateEvent{Object: ip(false)}, q)
		}, []queuedItem{{"a", 0}}},
		{"updated", func(q *queued) {
			laterAtStart{}.Update(ctx, event.UpdateEvent{ObjectOld: ip(false), ObjectNew: ip(true)}, q)
		}, []queuedItem{{"a", 0}}},
		{"deleted", func(q *queued) {
			laterAtStart{}.Delete(ctx, event.DeleteEvent{Object: ip(true)}, q)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &queued{}
			tt.send(q)
			if diff := cmp.Diff(tt.want, q.got); diff != "" {
				t.Errorf("queued (-want +got):\n%s", diff)
			}
		})
	}
}
