package conditions

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPublishableMessage(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"short and valid: unchanged", "pool built", "pool built"},
		{"invalid bytes become U+FFFD", "vm-\xff\xfe", "vm-\uFFFD\uFFFD"},
		{"cut at the limit", strings.Repeat("a", MaxMessageLength+5), strings.Repeat("a", MaxMessageLength)},
		{"cut on a rune boundary", strings.Repeat("é", MaxMessageLength), strings.Repeat("é", MaxMessageLength/2)},
		{"invalid bytes replaced before the cut", strings.Repeat("a", MaxMessageLength-2) + "\xff", strings.Repeat("a", MaxMessageLength-2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PublishableMessage(tt.in)
			if got != tt.want {
				t.Fatalf("PublishableMessage() = %q..., want %q...", got[:min(len(got), 20)], tt.want[:min(len(tt.want), 20)])
			}
			if !utf8.ValidString(got) || len(got) > MaxMessageLength {
				t.Fatalf("PublishableMessage() is %d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
			}
			b, _ := json.Marshal(got)
			var back string
			if err := json.Unmarshal(b, &back); err != nil || back != got {
				t.Fatalf("JSON round trip changed the message: %q, %v", back, err)
			}
		})
	}
}

// Summary publishes its message by the same rule.
func TestSummaryMessageIsPublishable(t *testing.T) {
	conds := []Condition{{Type: "A", Status: ConditionFalse, Reason: "Broken", Message: "bad \xff value"}}
	s := Summary("Ready", 0, conds, Term{Type: "A"})
	if !utf8.ValidString(s.Message) {
		t.Fatalf("Summary message %q is not valid UTF-8", s.Message)
	}
}
