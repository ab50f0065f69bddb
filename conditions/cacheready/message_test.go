package cacheready

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/vmnetkit/vmnetkit/conditions"
)

// jsonRoundTrip is what the API server stores of s: encoding/json writes
// each byte of an invalid UTF-8 sequence as U+FFFD.
func jsonRoundTrip(t testing.TB, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var out string
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// storeConditions writes conds the way an adapter's status update does: conditions.Set,
// then a JSON round trip through the API server.
func storeConditions(t testing.TB, conds []conditions.Condition) []conditions.Condition {
	t.Helper()
	b, err := json.Marshal(conds)
	if err != nil {
		t.Fatal(err)
	}
	var out []conditions.Condition
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBuildFailedMessageSurvivesJSONRoundTrip protects the API server from a
// write per observation: a build error with invalid UTF-8 is published as
// the text the API server stores, so that retries failing with the same error
// find the stored condition equal and publish nothing.
func TestBuildFailedMessageSurvivesJSONRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		err  string
	}{
		{"valid UTF-8", "restore: bad snapshot é"},
		{"a stray byte", "restore: bad owner \xff in snapshot"},
		{"a truncated sequence", "restore: owner \xe2\x82 cut"},
		{"a surrogate encoded in UTF-8", "owner \xed\xa0\x80"},
		{"invalid bytes past the length limit", strings.Repeat("a", conditions.MaxMessageLength-2) + "\xff\xff\xff"},
		{"only invalid bytes, longer than the limit", strings.Repeat("\xc0", conditions.MaxMessageLength)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(epochB)
			var persisted []conditions.Condition
			var epoch string
			var published []string
			step := func(e Event) {
				var d Decision
				m, d = m.Step(e)
				if d.Publish == nil {
					return
				}
				published = append(published, d.Publish.Message)
				persisted, _ = conditions.Set(persisted, *d.Publish, t0)
				persisted, epoch = storeConditions(t, persisted), d.Epoch
			}
			observe := func() {
				e := Observed{Generation: 3, StoredEpoch: epoch}
				if c, ok := conditions.Find(persisted, Type); ok {
					e.Stored = &c
				}
				step(e)
			}

			observe() // NotInitialized, build
			published = nil
			for range 10 { // the build fails, the next observation retries
				step(BuildFailed{Generation: 3, Err: errors.New(tt.err)})
				observe()
			}
			if len(published) != 1 {
				t.Errorf("10 identical retry rounds wrote the condition %d times, want 1", len(published))
			}
			slices.Sort(published)
			for _, msg := range slices.Compact(published) {
				if !utf8.ValidString(msg) || len(msg) > conditions.MaxMessageLength {
					t.Errorf("published message is not valid UTF-8 within %d bytes: %d bytes, %q...", conditions.MaxMessageLength, len(msg), msg[:min(len(msg), 40)])
				}
				if rt := jsonRoundTrip(t, msg); rt != msg {
					t.Errorf("published message changes in a JSON round trip (-published +stored):\n%s", cmp.Diff(msg, rt))
				}
			}
			c, _ := conditions.Find(persisted, Type)
			if want := conditions.PublishableMessage(jsonRoundTrip(t, tt.err)); c.Message != want {
				t.Errorf("stored message is not the error as JSON keeps it, truncated (-want +got):\n%s", cmp.Diff(want, c.Message))
			}
		})
	}
}

// FuzzMachineMessage checks that whatever a build error says, the
// published message is valid UTF-8 within conditions.MaxMessageLength, is what a JSON
// round trip of the error keeps (truncated), and survives a round trip.
// Messages at the length limit are TestBuildFailedMessageSurvivesJSONRoundTrip's
// cases; the seeds stay short so that the fuzzer runs fast.
func FuzzMachineMessage(f *testing.F) {
	f.Add("restore: bad snapshot")
	f.Add("bad \xff owner")
	f.Add("\xe2\x82")
	f.Add("\xed\xa0\x80 surrogate")
	f.Fuzz(func(t *testing.T, text string) {
		m, _ := New(epochB).Step(Observed{Generation: 1})
		_, d := m.Step(BuildFailed{Generation: 1, Err: errors.New(text)})
		if d.Publish == nil {
			t.Fatal("BuildFailed published nothing")
		}
		msg := d.Publish.Message
		if !utf8.ValidString(msg) || len(msg) > conditions.MaxMessageLength {
			t.Fatalf("message of %d bytes, valid UTF-8 %v", len(msg), utf8.ValidString(msg))
		}
		if want := conditions.PublishableMessage(jsonRoundTrip(t, text)); msg != want {
			t.Fatalf("message %q, want %q", msg, want)
		}
		if rt := jsonRoundTrip(t, msg); rt != msg {
			t.Fatalf("message %q becomes %q in a JSON round trip", msg, rt)
		}
	})
}
