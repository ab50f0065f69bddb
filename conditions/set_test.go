package conditions

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSet(t *testing.T) {
	t1s := time.Date(2026, 12, 2, 11, 30, 15, 0, time.UTC)
	base := []Condition{
		cond("Ready", ConditionFalse, 1, t0, "Waiting", "waiting"),
		cond("CacheReady", ConditionTrue, 1, t0, "CacheBuilt", "built"),
		cond("Stalled", ConditionFalse, 1, t0, "AsExpected", ""),
	}
	tests := []struct {
		name        string
		conds       []Condition
		set         Condition
		want        []Condition
		wantChanged bool
	}{
		{
			name:        "add to nil sets now truncated",
			set:         cond("Ready", ConditionTrue, 2, time.Time{}, "Up", "up"),
			want:        []Condition{cond("Ready", ConditionTrue, 2, t1s, "Up", "up")},
			wantChanged: true,
		},
		{
			name:        "add appends after the others",
			conds:       base,
			set:         cond("Synced", ConditionTrue, 1, time.Time{}, "Done", ""),
			want:        append(append([]Condition{}, base...), cond("Synced", ConditionTrue, 1, t1s, "Done", "")),
			wantChanged: true,
		},
		{
			name:        "identical set reports no change",
			conds:       base,
			set:         cond("CacheReady", ConditionTrue, 1, time.Time{}, "CacheBuilt", "built"),
			want:        base,
			wantChanged: false,
		},
		{
			name:  "status change moves the time, keeps order",
			conds: base,
			set:   cond("CacheReady", ConditionFalse, 1, time.Time{}, "OwnerRestarted", "restarted"),
			want: []Condition{
				base[0],
				cond("CacheReady", ConditionFalse, 1, t1s, "OwnerRestarted", "restarted"),
				base[2],
			},
			wantChanged: true,
		},
		{
			name:  "message change keeps the time",
			conds: base,
			set:   cond("Ready", ConditionFalse, 1, time.Time{}, "Waiting", "still waiting"),
			want: []Condition{
				cond("Ready", ConditionFalse, 1, t0, "Waiting", "still waiting"),
				base[1], base[2],
			},
			wantChanged: true,
		},
		{
			name:  "reason change keeps the time",
			conds: base,
			set:   cond("Ready", ConditionFalse, 1, time.Time{}, "Blocked", "waiting"),
			want: []Condition{
				cond("Ready", ConditionFalse, 1, t0, "Blocked", "waiting"),
				base[1], base[2],
			},
			wantChanged: true,
		},
		{
			name:  "observedGeneration change keeps the time",
			conds: base,
			set:   cond("CacheReady", ConditionTrue, 7, time.Time{}, "CacheBuilt", "built"),
			want: []Condition{
				base[0],
				cond("CacheReady", ConditionTrue, 7, t0, "CacheBuilt", "built"),
				base[2],
			},
			wantChanged: true,
		},
		{
			name:        "caller's time is ignored on a status change",
			conds:       base,
			set:         cond("Stalled", ConditionTrue, 1, t0.Add(-time.Hour), "Backoff", ""),
			want:        []Condition{base[0], base[1], cond("Stalled", ConditionTrue, 1, t1s, "Backoff", "")},
			wantChanged: true,
		},
		{
			name:        "caller's time is ignored without a status change",
			conds:       base,
			set:         cond("Stalled", ConditionFalse, 1, t1, "AsExpected", ""),
			want:        base,
			wantChanged: false,
		},
		{
			name:        "stored zero time is repaired",
			conds:       []Condition{cond("Ready", ConditionTrue, 1, time.Time{}, "Up", "")},
			set:         cond("Ready", ConditionTrue, 1, time.Time{}, "Up", ""),
			want:        []Condition{cond("Ready", ConditionTrue, 1, t1s, "Up", "")},
			wantChanged: true,
		},
		{
			name: "later duplicates are removed",
			conds: []Condition{
				cond("Ready", ConditionTrue, 1, t0, "Up", ""),
				cond("Other", ConditionTrue, 1, t0, "Up", ""),
				cond("Ready", ConditionFalse, 1, t0, "Down", ""),
			},
			set: cond("Ready", ConditionTrue, 1, time.Time{}, "Up", ""),
			want: []Condition{
				cond("Ready", ConditionTrue, 1, t0, "Up", ""),
				cond("Other", ConditionTrue, 1, t0, "Up", ""),
			},
			wantChanged: true,
		},
		{
			name:        "a time in another zone is stored in UTC",
			set:         cond("Ready", ConditionTrue, 0, time.Time{}, "Up", ""),
			want:        []Condition{cond("Ready", ConditionTrue, 0, t1s, "Up", "")},
			wantChanged: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := append([]Condition(nil), tt.conds...)
			now := t1
			if tt.name == "a time in another zone is stored in UTC" {
				now = t1.In(time.FixedZone("CET", 3600))
			}
			got, changed := Set(tt.conds, tt.set, now)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Set conditions (-want +got):\n%s", diff)
			}
			if changed != tt.wantChanged {
				t.Errorf("Set changed = %v, want %v", changed, tt.wantChanged)
			}
			if diff := cmp.Diff(before, tt.conds); diff != "" {
				t.Errorf("Set wrote to its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestSetDoesNotShareBackingArray(t *testing.T) {
	conds := make([]Condition, 1, 4)
	conds[0] = cond("A", ConditionTrue, 1, t0, "Up", "")
	a, _ := Set(conds, cond("B", ConditionTrue, 1, time.Time{}, "Up", ""), t1)
	b, _ := Set(conds, cond("C", ConditionTrue, 1, time.Time{}, "Up", ""), t1)
	if a[1].Type != "B" || b[1].Type != "C" {
		t.Fatalf("two Sets on one slice interfered: %v / %v", a[1].Type, b[1].Type)
	}
}

func TestFindRemove(t *testing.T) {
	conds := []Condition{
		cond("A", ConditionTrue, 1, t0, "Up", ""),
		cond("B", ConditionFalse, 1, t0, "Down", ""),
		cond("A", ConditionFalse, 2, t0, "Dup", ""),
	}
	if got, ok := Find(conds, "A"); !ok || got.Reason != "Up" {
		t.Errorf("Find(A) = %v, %v; want the first A", got, ok)
	}
	if got, ok := Find(conds, "Z"); ok || got != (Condition{}) {
		t.Errorf("Find(Z) = %v, %v; want zero, false", got, ok)
	}
	tests := []struct {
		name        string
		typ         string
		want        []Condition
		wantRemoved bool
	}{
		{name: "absent", typ: "Z", want: conds, wantRemoved: false},
		{name: "every duplicate", typ: "A", want: []Condition{conds[1]}, wantRemoved: true},
		{name: "single", typ: "B", want: []Condition{conds[0], conds[2]}, wantRemoved: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, removed := Remove(conds, tt.typ)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Remove(%q) (-want +got):\n%s", tt.typ, diff)
			}
			if removed != tt.wantRemoved {
				t.Errorf("Remove(%q) removed = %v, want %v", tt.typ, removed, tt.wantRemoved)
			}
		})
	}
	if len(conds) != 3 || conds[0].Type != "A" || conds[1].Type != "B" {
		t.Errorf("Remove wrote to its input: %v", conds)
	}
}

func TestStatusPredicates(t *testing.T) {
	conds := []Condition{
		cond("T", ConditionTrue, 1, t0, "R", ""),
		cond("F", ConditionFalse, 1, t0, "R", ""),
		cond("U", ConditionUnknown, 1, t0, "R", ""),
		cond("Bogus", "Maybe", 1, t0, "R", ""),
	}
	tests := []struct {
		typ                 string
		isTrue, isFalse, un bool
	}{
		{typ: "T", isTrue: true},
		{typ: "F", isFalse: true},
		{typ: "U", un: true},
		{typ: "Bogus", un: true},
		{typ: "Absent", un: true},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			got := [3]bool{IsTrue(conds, tt.typ), IsFalse(conds, tt.typ), IsUnknown(conds, tt.typ)}
			want := [3]bool{tt.isTrue, tt.isFalse, tt.un}
			if got != want {
				t.Errorf("IsTrue/IsFalse/IsUnknown(%q) = %v, want %v", tt.typ, got, want)
			}
		})
	}
}

func TestReadersDoNotAllocate(t *testing.T) {
	conds := []Condition{cond("A", ConditionTrue, 1, t0, "Up", ""), cond("CacheReady", ConditionTrue, 3, t0, "CacheBuilt", "")}
	valid := cond("example.com/Ready", ConditionTrue, 1, t0, "Up", "fine")
	n := testing.AllocsPerRun(100, func() {
		Find(conds, "A")
		IsTrue(conds, "A")
		IsFalse(conds, "A")
		IsUnknown(conds, "B")
		ValidReason("CacheBuilt")
		PublishableMessage("pool built")
		if Validate(valid) != nil {
			t.Fatal("valid condition rejected")
		}
	})
	if n != 0 {
		t.Errorf("readers allocate %v times per run, want 0", n)
	}
}
