package poolsource

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/leasestore"
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

func TestDuration(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{`"1h"`, time.Hour, false},
		{`"1h0m0s"`, time.Hour, false},
		{`"90s"`, 90 * time.Second, false},
		{`3600`, time.Hour, false},
		{`4294967295`, leasestore.MaxLeaseTime, false},
		{`null`, 0, false},
		{`4294967296`, 0, true},
		{`-1`, 0, true},
		{`1.5`, 0, true},
		{`"soon"`, 0, true},
		{`true`, 0, true},
	}
	for _, tt := range tests {
		var d Duration
		err := json.Unmarshal([]byte(tt.in), &d)
		if (err != nil) != tt.wantErr || time.Duration(d) != tt.want {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v, error %v", tt.in, time.Duration(d), err, tt.want, tt.wantErr)
		}
	}
	b, err := json.Marshal(Duration(90 * time.Minute))
	if err != nil || string(b) != `"1h30m0s"` {
		t.Errorf("Marshal = %s, %v; want \"1h30m0s\"", b, err)
	}
}

func TestDecodePoolErrors(t *testing.T) {
	for _, in := range []string{``, `{`, `[]`, `{"spec": {"cidr": 7}}`, `{"spec": {"leaseTime": "x"}}`, `{} {}`} {
		if _, err := DecodePool([]byte(in)); !errors.Is(err, ErrInvalidPool) {
			t.Errorf("DecodePool(%q) error = %v, want ErrInvalidPool", in, err)
		}
	}
}
