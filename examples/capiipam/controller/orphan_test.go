package controller

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
)

// TestWarnOrphan: a Warning only for a lock whose holder does not exist
// and that is at least orphanAge old; a younger one may be a create in
// flight (a split brain's other manager between its lock and its
// IPAddress), and one whose holder exists is that holder's.
func TestWarnOrphan(t *testing.T) {
	created := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		age     time.Duration
		missing bool
		want    []string
	}{
		{"holder missing, a minute old", time.Minute, true, []string{
			"Warning LockWithoutHolder address 10.6.0.5 is locked for IPAddress ns/m, which does not exist 1m0s after the lock's creation; " +
				"a process stopped between a lock and its IPAddress, whose claim is gone, leaves such a lock: " +
				"VMNetIPAddressLock 10.6.0.5.abc is reclaimed once this process has seen it so for 1m0s",
		}},
		{"holder missing, just under a minute old", time.Minute - time.Second, true, nil},
		{"holder missing, just created", 0, true, nil},
		{"holder exists, an hour old", time.Hour, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := record.NewFakeRecorder(4)
			r := &addressLocks{recorder: rec, now: func() time.Time { return created.Add(tt.age) }}
			l := &v1alpha1.VMNetIPAddressLock{
				ObjectMeta: metav1.ObjectMeta{Name: "10.6.0.5.abc", CreationTimestamp: metav1.NewTime(created)},
				Spec:       v1alpha1.AddressLockSpec{Address: "10.6.0.5", HolderNamespace: "ns", HolderName: "m"},
			}
			r.warnOrphan(&v1alpha1.VMNetIPPool{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "net"}}, &foreignLock{lock: l, holderMissing: tt.missing})
			close(rec.Events)
			var got []string
			for e := range rec.Events {
				got = append(got, e)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}
