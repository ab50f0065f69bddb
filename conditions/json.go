package conditions

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// conditionJSON is Condition's wire form; only the time differs.
type conditionJSON struct {
	Type               string   `json:"type"`
	Status             Status   `json:"status"`
	ObservedGeneration int64    `json:"observedGeneration,omitempty"`
	LastTransitionTime wireTime `json:"lastTransitionTime"`
	Reason             string   `json:"reason"`
	Message            string   `json:"message"`
}

// wireTime marshals like metav1.Time: RFC 3339 in UTC, whole seconds, null
// for the zero time.
type wireTime struct{ t time.Time }

var errTimeRange = errors.New("year outside [0,9999] cannot be written as RFC 3339")

func (w wireTime) MarshalJSON() ([]byte, error) {
	if w.t.IsZero() {
		return []byte("null"), nil
	}
	u := w.t.UTC()
	if y := u.Year(); y < 0 || y > 9999 {
		return nil, fmt.Errorf("conditions: lastTransitionTime %s: %w", u.Format(time.RFC3339), errTimeRange)
	}
	b := make([]byte, 0, len(time.RFC3339)+2)
	b = append(b, '"')
	b = u.AppendFormat(b, time.RFC3339)
	return append(b, '"'), nil
}

func (w *wireTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		w.t = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("conditions: lastTransitionTime: %w", err)
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return fmt.Errorf("conditions: lastTransitionTime %q: %w", s, err)
	}
	// UTC rather than metav1's Local: the package reads no global state.
	w.t = t.UTC()
	return nil
}

// MarshalJSON writes c as metav1.Condition does. It fails only for a
// LastTransitionTime outside the years 0 to 9999, which RFC 3339 cannot hold.
func (c Condition) MarshalJSON() ([]byte, error) {
	return json.Marshal(conditionJSON{
		Type:               c.Type,
		Status:             c.Status,
		ObservedGeneration: c.ObservedGeneration,
		LastTransitionTime: wireTime{c.LastTransitionTime},
		Reason:             c.Reason,
		Message:            c.Message,
	})
}

// UnmarshalJSON reads what metav1.Condition writes. The time is returned in
// UTC; null or an absent lastTransitionTime reads as the zero time.
func (c *Condition) UnmarshalJSON(b []byte) error {
	var w conditionJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = Condition{
		Type:               w.Type,
		Status:             w.Status,
		ObservedGeneration: w.ObservedGeneration,
		LastTransitionTime: w.LastTransitionTime.t,
		Reason:             w.Reason,
		Message:            w.Message,
	}
	return nil
}
