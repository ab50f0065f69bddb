package conditions

import "time"

// Status is the status of a condition: ConditionTrue, ConditionFalse or
// ConditionUnknown. Its zero value "" is invalid (Validate rejects it).
type Status string

// The three statuses the Kubernetes API accepts.
const (
	ConditionTrue    Status = "True"
	ConditionFalse   Status = "False"
	ConditionUnknown Status = "Unknown"
)

// Condition is one status condition, field for field and JSON name for JSON
// name the Kubernetes API's metav1.Condition, so an adapter converts with a
// plain field copy (LastTransitionTime is metav1.Time's embedded time.Time)
// or a JSON round trip.
//
// Its JSON form is exactly metav1.Condition's: LastTransitionTime is written
// as an RFC 3339 string in UTC with whole seconds (a zero time as null), and
// observedGeneration is omitted when zero.
//
// The zero value is not a valid condition: Validate lists what is missing.
type Condition struct {
	// Type names the condition, a qualified name such as "Ready" or
	// "example.com/CacheReady".
	Type string `json:"type"`
	// Status is True, False or Unknown.
	Status Status `json:"status"`
	// ObservedGeneration is the object's metadata.generation the condition
	// was computed from; zero means unset.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// LastTransitionTime is when Status last changed. Set maintains it.
	LastTransitionTime time.Time `json:"lastTransitionTime"`
	// Reason is a CamelCase, machine-readable cause, required by the API server.
	Reason string `json:"reason"`
	// Message is a human-readable explanation; it may be empty.
	Message string `json:"message"`
}
