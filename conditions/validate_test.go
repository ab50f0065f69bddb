package conditions

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestValidate(t *testing.T) {
	with := func(f func(*Condition)) Condition { c := valid(); f(&c); return c }
	tests := []struct {
		name string
		c    Condition
		want []string // fields in violation, in order
	}{
		{"valid", valid(), nil},
		{"valid: prefixed type", with(func(c *Condition) { c.Type = "vmnetkit.example.com/Cache.Ready_2" }), nil},
		{"valid: 63-byte name", with(func(c *Condition) { c.Type = strings.Repeat("a", 63) }), nil},
		{"valid: 253-byte prefix and 62-byte name (316)", with(func(c *Condition) {
			c.Type = strings.Repeat("a", 61) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 63) + "/" + strings.Repeat("n", 62)
		}), nil},
		{"valid: reason with ,:_", with(func(c *Condition) { c.Reason = "ReasonA,Reason_B:C_" }), nil},
		{"valid: reason of 1024 bytes", with(func(c *Condition) { c.Reason = strings.Repeat("R", 1024) }), nil},
		{"valid: message of 32768 bytes", with(func(c *Condition) { c.Message = strings.Repeat("m", 32768) }), nil},
		{"valid: empty message", with(func(c *Condition) { c.Message = "" }), nil},
		{"valid: zero observedGeneration", with(func(c *Condition) { c.ObservedGeneration = 0 }), nil},
		{"valid: Unknown", with(func(c *Condition) { c.Status = ConditionUnknown }), nil},
		{"valid: year 0", with(func(c *Condition) { c.LastTransitionTime = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC) }), nil},

		{"type empty", with(func(c *Condition) { c.Type = "" }), []string{"type"}},
		{"type with space", with(func(c *Condition) { c.Type = "Cache Ready" }), []string{"type"}},
		{"type ends with dash", with(func(c *Condition) { c.Type = "Ready-" }), []string{"type"}},
		{"type name of 64 bytes", with(func(c *Condition) { c.Type = strings.Repeat("a", 64) }), []string{"type"}},
		{"type with two slashes", with(func(c *Condition) { c.Type = "a/b/c" }), []string{"type"}},
		{"type with empty prefix", with(func(c *Condition) { c.Type = "/Ready" }), []string{"type"}},
		{"type with empty name", with(func(c *Condition) { c.Type = "example.com/" }), []string{"type"}},
		{"type with upper-case prefix", with(func(c *Condition) { c.Type = "Example.com/Ready" }), []string{"type"}},
		{"type with double dot prefix", with(func(c *Condition) { c.Type = "example..com/Ready" }), []string{"type"}},
		{"type prefix of 254 bytes", with(func(c *Condition) { c.Type = strings.Repeat("a", 254) + "/R" }), []string{"type"}},
		{"type of 317 bytes", with(func(c *Condition) {
			c.Type = strings.Repeat("a", 61) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 63) + "/" + strings.Repeat("n", 63)
		}), []string{"type"}},
		{"status empty", with(func(c *Condition) { c.Status = "" }), []string{"status"}},
		{"status lower case", with(func(c *Condition) { c.Status = "true" }), []string{"status"}},
		{"observedGeneration negative", with(func(c *Condition) { c.ObservedGeneration = -1 }), []string{"observedGeneration"}},
		{"lastTransitionTime zero", with(func(c *Condition) { c.LastTransitionTime = time.Time{} }), []string{"lastTransitionTime"}},
		{"lastTransitionTime year 10000", with(func(c *Condition) { c.LastTransitionTime = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }), []string{"lastTransitionTime"}},
		{"lastTransitionTime year -1", with(func(c *Condition) { c.LastTransitionTime = time.Date(-1, 12, 31, 0, 0, 0, 0, time.UTC) }), []string{"lastTransitionTime"}},
		{"reason empty", with(func(c *Condition) { c.Reason = "" }), []string{"reason"}},
		{"reason starts with a digit", with(func(c *Condition) { c.Reason = "1Reason" }), []string{"reason"}},
		{"reason ends with a comma", with(func(c *Condition) { c.Reason = "Reason," }), []string{"reason"}},
		{"reason with a space", with(func(c *Condition) { c.Reason = "Cache Built" }), []string{"reason"}},
		{"reason of 1025 bytes", with(func(c *Condition) { c.Reason = strings.Repeat("R", 1025) }), []string{"reason"}},
		{"reason too long and malformed", with(func(c *Condition) { c.Reason = strings.Repeat("R", 1025) + "-" }), []string{"reason", "reason"}},
		{"message of 32769 bytes", with(func(c *Condition) { c.Message = strings.Repeat("m", 32769) }), []string{"message"}},
		{"zero value: every required field", Condition{}, []string{"type", "status", "lastTransitionTime", "reason"}},
		{"every rule at once", Condition{Type: "a b", Status: "Yes", ObservedGeneration: -2, Reason: "no way", Message: strings.Repeat("x", 40000)},
			[]string{"type", "status", "observedGeneration", "lastTransitionTime", "reason", "message"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.c)
			if diff := cmp.Diff(tt.want, fields(err)); diff != "" {
				t.Errorf("Validate violations (-want +got):\n%s\nerror: %v", diff, err)
			}
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Errorf("Validate error %v does not wrap ErrInvalid", err)
			}
		})
	}
}

func TestValidateErrorText(t *testing.T) {
	tests := []struct {
		name string
		c    Condition
		want string
	}{
		{"reason", cond("Ready", ConditionTrue, 1, t0, "Cache Built", ""),
			`conditions: validate "Ready": reason "Cache Built": must start with a letter, contain only letters, digits and '_', ',' or ':', and end with a letter, digit or '_' (e.g. "MyReason", "Reason_A,ReasonB")`},
		{"status", cond("Ready", "yes", 1, t0, "Up", ""),
			`conditions: validate "Ready": status "yes": must be "True", "False" or "Unknown"`},
		{"message length, not the message", cond("Ready", ConditionTrue, 1, t0, "Up", strings.Repeat("x", 40000)),
			`conditions: validate "Ready": message (40000 bytes): must be at most 32768 bytes`},
		{"long value is elided", cond(strings.Repeat("a", 70), ConditionTrue, 1, t0, "Up", ""),
			`conditions: validate "` + strings.Repeat("a", 70) + `": type "` + strings.Repeat("a", 64) + `"... (70 bytes): name part must be at most 63 bytes`},
		{"generation and time", Condition{Type: "Ready", Status: ConditionTrue, ObservedGeneration: -1, Reason: "Up"},
			"conditions: validate \"Ready\": observedGeneration -1: must not be negative\n" +
				`conditions: validate "Ready": lastTransitionTime (zero): is required`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.c)
			if err == nil {
				t.Fatal("Validate accepted an invalid condition")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error text (-want +got):\n%s", diff)
			}
		})
	}
}

// The API server's literal patterns (k8s.io/apimachinery/pkg/util/validation
// and metav1.Condition's schema), to check the hand-written matchers against.
var (
	k8sReason    = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)
	k8sName      = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	k8sSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	k8sType      = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`)
)

// acceptable is an independent restatement of the rules Validate enforces,
// built on the API server's regular expressions and CRD schema limits.
func acceptable(c Condition) bool {
	typeOK := k8sType.MatchString(c.Type) && len(c.Type) <= 316
	if prefix, name, ok := strings.Cut(c.Type, "/"); ok {
		typeOK = typeOK && len(prefix) <= 253 && len(name) <= 63
	} else {
		typeOK = typeOK && len(c.Type) <= 63
	}
	statusOK := c.Status == "True" || c.Status == "False" || c.Status == "Unknown"
	sec := c.LastTransitionTime.Unix()
	timeOK := !c.LastTransitionTime.IsZero() && sec >= -62167219200 && sec < 253402300800
	reasonOK := c.Reason != "" && len(c.Reason) <= 1024 && k8sReason.MatchString(c.Reason)
	return typeOK && statusOK && c.ObservedGeneration >= 0 && timeOK && reasonOK && len(c.Message) <= 32768
}

func FuzzValidate(f *testing.F) {
	f.Add("CacheReady", "True", int64(3), int64(1764669600), int64(0), "CacheBuilt", "built", uint16(1))
	f.Add("example.com/Ready", "False", int64(0), int64(1), int64(5), "A,B:C_", "", uint16(0))
	f.Add("a/b/c", "Maybe", int64(-1), int64(-62135596800), int64(0), "1bad", "x", uint16(40000))
	f.Add("/", "", int64(1), int64(253402300800), int64(0), "R", "", uint16(2))
	f.Add("Ex.com/R", "Unknown", int64(1), int64(-62167219200), int64(999999999), "R,", "é", uint16(9000))
	f.Add("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "True", int64(1), int64(0), int64(0), "R_", "", uint16(1))
	f.Fuzz(func(t *testing.T, typ, status string, gen, sec, nsec int64, reason, message string, repeat uint16) {
		if nsec < 0 || nsec >= 1e9 {
			nsec = 0
		}
		// Repeat stretches message and reason past their limits sometimes.
		if len(message)*int(repeat) <= 1<<16 {
			message = strings.Repeat(message, int(repeat))
		}
		if repeat > 2000 && len(reason) > 0 && len(reason)*(int(repeat)/1000) <= 1<<12 {
			reason = strings.Repeat(reason, int(repeat)/1000)
		}
		c := Condition{Type: typ, Status: Status(status), ObservedGeneration: gen,
			LastTransitionTime: time.Unix(sec, nsec).UTC(), Reason: reason, Message: message}
		err := Validate(c)
		if want := acceptable(c); (err == nil) != want {
			t.Fatalf("Validate(%+v) = %v; the rules say acceptable = %v", c, err, want)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			if len(fields(err)) == 0 {
				t.Fatalf("error %v lists no violation", err)
			}
		}
	})
}

func TestGrammarMatchesRegexps(t *testing.T) {
	alphabet := "aZ0-_.,:é" // one of each class, and a multi-byte rune
	var inputs []string
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		inputs = append(inputs, prefix)
		if n == 0 {
			return
		}
		for _, r := range alphabet {
			gen(prefix+string(r), n-1)
		}
	}
	gen("", 4)
	for _, s := range inputs {
		if got, want := isReason(s), k8sReason.MatchString(s); got != want {
			t.Errorf("isReason(%q) = %v, regexp says %v", s, got, want)
		}
		if got, want := isTypeName(s), k8sName.MatchString(s); got != want {
			t.Errorf("isTypeName(%q) = %v, regexp says %v", s, got, want)
		}
		if got, want := isSubdomain(s), k8sSubdomain.MatchString(s); got != want {
			t.Errorf("isSubdomain(%q) = %v, regexp says %v", s, got, want)
		}
	}
}

// ValidReason agrees with Validate on the reason field, including the
// length limit.
func TestValidReason(t *testing.T) {
	long := strings.Repeat("a", MaxReasonLength)
	for _, r := range []string{"", "CacheBuilt", "Reason_A,ReasonB", "a:b", "cache built", "1Up", "Up_", "Up,", "é", long, long + "a"} {
		c := valid()
		c.Reason = r
		reasonOK := !slices.Contains(fields(Validate(c)), "reason")
		if got := ValidReason(r); got != reasonOK {
			t.Errorf("ValidReason(%q) = %v, Validate accepts the reason: %v", quoteShort(r), got, reasonOK)
		}
	}
	if ValidReason("") || ValidReason(long+"a") || !ValidReason(long) || !ValidReason("CacheBuilt") {
		t.Error("ValidReason: empty, too long or a plain reason misjudged")
	}
}
