package poolcache

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
)

// entry is a test entry: the UID it was made for and its serial number,
// so that a test tells a kept entry from a new one.
type entry struct {
	uid    types.UID
	serial int
}

// op is one call on the cache and what it shows: the entry's UID and
// serial (0 for nil) and, for Get, the UID it reports.
type op struct {
	call string // "get", "entry", "remove"
	key  string
	uid  types.UID
}

type seen struct {
	UID    types.UID
	Serial int
	Got    types.UID // Get's second result
}

func TestCache(t *testing.T) {
	tests := []struct {
		name string
		ops  []op
		want []seen
	}{
		{
			name: "get of an unknown key is nil",
			ops:  []op{{"get", "a", ""}},
			want: []seen{{}},
		},
		{
			name: "entry makes one and keeps it for the same UID",
			ops:  []op{{"entry", "a", "u1"}, {"entry", "a", "u1"}, {"get", "a", ""}},
			want: []seen{{UID: "u1", Serial: 1}, {UID: "u1", Serial: 1}, {UID: "u1", Serial: 1, Got: "u1"}},
		},
		{
			name: "a pool made again under its name gets a new entry",
			ops:  []op{{"entry", "a", "u1"}, {"entry", "a", "u2"}, {"get", "a", ""}},
			want: []seen{{UID: "u1", Serial: 1}, {UID: "u2", Serial: 2}, {UID: "u2", Serial: 2, Got: "u2"}},
		},
		{
			name: "remove returns the entry and forgets it",
			ops:  []op{{"entry", "a", "u1"}, {"remove", "a", ""}, {"get", "a", ""}, {"remove", "a", ""}, {"entry", "a", "u1"}},
			want: []seen{{UID: "u1", Serial: 1}, {UID: "u1", Serial: 1}, {}, {}, {UID: "u1", Serial: 2}},
		},
		{
			name: "keys are apart",
			ops:  []op{{"entry", "a", "u1"}, {"entry", "b", "u1"}, {"remove", "a", ""}, {"get", "b", ""}},
			want: []seen{{UID: "u1", Serial: 1}, {UID: "u1", Serial: 2}, {UID: "u1", Serial: 1}, {UID: "u1", Serial: 2, Got: "u1"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			serial := 0
			c := New[string](func(uid types.UID) *entry {
				serial++
				return &entry{uid: uid, serial: serial}
			})
			var got []seen
			for _, o := range tt.ops {
				var e *entry
				var uid types.UID
				switch o.call {
				case "get":
					e, uid = c.Get(o.key)
				case "entry":
					e = c.Entry(o.key, o.uid)
				case "remove":
					e = c.Remove(o.key)
				}
				s := seen{Got: uid}
				if e != nil {
					s.UID, s.Serial = e.uid, e.serial
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("calls %v (-want +got):\n%s", tt.ops, diff)
			}
		})
	}
}

// TestCacheConcurrent: callers of one key at once all get the one entry
// made for their UID (run with -race).
func TestCacheConcurrent(t *testing.T) {
	c := New[string](func(uid types.UID) *entry { return &entry{uid: uid} })
	const n = 64
	got := make([]*entry, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = c.Entry("a", "u1")
			c.Get("a")
		}()
	}
	wg.Wait()
	for i, e := range got {
		if e != got[0] {
			t.Fatalf("caller %d got entry %p, caller 0 %p: want one entry", i, e, got[0])
		}
	}
}
