package conditions

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The literal JSON strings are what k8s.io/apimachinery's metav1.Condition
// marshals (metav1.Time: RFC 3339, UTC, whole seconds, null when zero).
func TestConditionJSON(t *testing.T) {
	tests := []struct {
		name string
		c    Condition
		json string
		// back is what the JSON reads back as, when it differs from c.
		back *Condition
	}{
		{
			name: "full",
			c:    cond("CacheReady", ConditionTrue, 3, t0, "CacheBuilt", "built"),
			json: `{"type":"CacheReady","status":"True","observedGeneration":3,"lastTransitionTime":"2026-12-02T10:00:00Z","reason":"CacheBuilt","message":"built"}`,
		},
		{
			name: "zero generation omitted, empty message kept",
			c:    cond("Ready", ConditionFalse, 0, t0, "Waiting", ""),
			json: `{"type":"Ready","status":"False","lastTransitionTime":"2026-12-02T10:00:00Z","reason":"Waiting","message":""}`,
		},
		{
			name: "zero time is null",
			c:    Condition{},
			json: `{"type":"","status":"","lastTransitionTime":null,"reason":"","message":""}`,
		},
		{
			name: "other zone and fraction written as UTC whole seconds",
			c:    cond("Ready", ConditionTrue, 1, t1.In(time.FixedZone("X", -5*3600)), "Up", ""),
			json: `{"type":"Ready","status":"True","observedGeneration":1,"lastTransitionTime":"2026-12-02T11:30:15Z","reason":"Up","message":""}`,
			back: &Condition{Type: "Ready", Status: ConditionTrue, ObservedGeneration: 1, LastTransitionTime: time.Date(2026, 12, 2, 11, 30, 15, 0, time.UTC), Reason: "Up"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.c)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if diff := cmp.Diff(tt.json, string(b)); diff != "" {
				t.Errorf("Marshal (-want +got):\n%s", diff)
			}
			var got Condition
			if err := json.Unmarshal([]byte(tt.json), &got); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			want := tt.c
			if tt.back != nil {
				want = *tt.back
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Unmarshal (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConditionUnmarshalJSON(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		want    Condition
		wantErr bool
	}{
		{
			name: "offset converted to UTC",
			json: `{"type":"Ready","status":"True","lastTransitionTime":"2026-12-02T12:00:00+02:00","reason":"Up","message":"m"}`,
			want: cond("Ready", ConditionTrue, 0, t0, "Up", "m"),
		},
		{
			name: "absent time and fields",
			json: `{"type":"Ready"}`,
			want: Condition{Type: "Ready"},
		},
		{
			name: "unknown fields ignored",
			json: `{"type":"Ready","status":"False","reason":"R","message":"","severity":"Info","lastTransitionTime":"2026-12-02T10:00:00Z"}`,
			want: cond("Ready", ConditionFalse, 0, t0, "R", ""),
		},
		{name: "bad time", json: `{"lastTransitionTime":"yesterday"}`, wantErr: true},
		{name: "time not a string", json: `{"lastTransitionTime":12}`, wantErr: true},
		{name: "generation not a number", json: `{"observedGeneration":"3"}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Condition
			err := json.Unmarshal([]byte(tt.json), &got)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Unmarshal error = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Unmarshal (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConditionJSONYearOutOfRange(t *testing.T) {
	c := cond("Ready", ConditionTrue, 1, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), "Up", "")
	if _, err := json.Marshal(c); err == nil {
		t.Fatal("Marshal of year 10000 succeeded, want an error")
	}
}

func TestConditionsSliceJSON(t *testing.T) {
	in := []Condition{cond("A", ConditionTrue, 1, t0, "Up", ""), cond("B", ConditionFalse, 2, t0, "Down", "x")}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out []Condition
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func FuzzConditionJSON(f *testing.F) {
	f.Add(`{"type":"CacheReady","status":"True","observedGeneration":3,"lastTransitionTime":"2026-12-02T10:00:00Z","reason":"CacheBuilt","message":"built"}`)
	f.Add(`{"type":"Ready","lastTransitionTime":"2026-12-02T12:00:00.5+02:00"}`)
	f.Add(`{"lastTransitionTime":null}`)
	f.Add(`{"lastTransitionTime":"0000-01-01T00:00:00Z","message":"\u00e9\ud800"}`)
	f.Add(`[]`)
	f.Add(`{"observedGeneration":-9223372036854775808}`)
	f.Fuzz(func(t *testing.T, in string) {
		var c Condition
		if err := json.Unmarshal([]byte(in), &c); err != nil {
			return
		}
		b, err := json.Marshal(c)
		if err != nil {
			return // a year RFC 3339 cannot hold
		}
		var back Condition
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("Unmarshal(Marshal(%+v)) = %v; JSON %s", c, err, b)
		}
		want := c
		want.LastTransitionTime = c.LastTransitionTime.Truncate(time.Second)
		if diff := cmp.Diff(want, back); diff != "" {
			t.Fatalf("round trip of %s (-want +got):\n%s", b, diff)
		}
		b2, err := json.Marshal(back)
		if err != nil || string(b2) != string(b) {
			t.Fatalf("second Marshal = %s, %v; first %s", b2, err, b)
		}
	})
}
