package agent

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// TestDecodePoolRejectsTrailingData protects DecodePool's promise that data
// after the object is an error, whatever that data is: closing brackets the
// JSON decoder's More reports as the end of a value are trailing data too.
// Trailing JSON whitespace is not data.
func TestDecodePoolRejectsTrailingData(t *testing.T) {
	const pool = `{"metadata":{"name":"lab"},"spec":{"cidr":"10.0.0.0/24"}}`
	tests := []struct {
		name    string
		in      string
		wantErr bool
	}{
		{"closing brackets and brace", pool + `]]}`, true},
		{"a closing bracket", pool + `]`, true},
		{"a closing brace", pool + `}`, true},
		{"a closing brace after whitespace", pool + "\n}", true},
		{"a letter", pool + `x`, true},
		{"a second object", pool + ` {}`, true},
		{"a comma", pool + `,`, true},
		{"a NUL byte", pool + "\x00", true},
		{"a non-JSON space (U+00A0)", pool + "\u00a0", true},
		{"JSON whitespace only", pool + " \t\r\n", false},
		{"nothing", pool, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := DecodePool([]byte(tt.in))
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidPool) || p != nil {
					t.Errorf("DecodePool(%q) = %v, %v; want nil and ErrInvalidPool", tt.in, p, err)
				}
				return
			}
			if err != nil || p.Name() != "lab" {
				t.Errorf("DecodePool(%q) = %v, %v; want pool lab", tt.in, p, err)
			}
		})
	}
}

// FuzzDecodePool checks DecodePool against encoding/json's own reading of
// the whole input: it accepts only input that is exactly one JSON value
// (JSON whitespace around it allowed), and appending a closing bracket to
// accepted input makes it rejected.
func FuzzDecodePool(f *testing.F) {
	seed, err := os.ReadFile("testdata/pool.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"spec":{"cidr":"10.0.0.0/24"}}]]}`))
	f.Add([]byte(`{"spec":{"cidr":"10.0.0.0/24"}}x`))
	f.Add([]byte(`{}}`))
	f.Add([]byte(`{} `))
	f.Add([]byte(`null]`))
	f.Add([]byte(`{"metadata":{"name":"lab"}} {}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodePool(data)
		if err != nil {
			if !errors.Is(err, ErrInvalidPool) || p != nil {
				t.Fatalf("DecodePool(%q) = %v, %v; want nil and ErrInvalidPool", data, p, err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("DecodePool(%q) accepted input that is not one JSON value", data)
		}
		for _, tail := range []string{"]", "}", "x"} {
			if _, err := DecodePool(append(data[:len(data):len(data)], tail...)); !errors.Is(err, ErrInvalidPool) {
				t.Fatalf("DecodePool(%q + %q) error = %v, want ErrInvalidPool", data, tail, err)
			}
		}
	})
}
