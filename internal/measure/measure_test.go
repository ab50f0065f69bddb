package measure

import "testing"

var sink []byte

// slack is the heap the testing package itself may take or free between
// two garbage collections.
const slack = 32 << 10

func TestRetained(t *testing.T) {
	tests := []struct {
		name     string
		build    func() any
		min, max int64
	}{
		{"nothing", func() any { return nil }, -slack, slack},
		{"1 MiB kept", func() any { return make([]byte, 1<<20) }, 1<<20 - slack, 1<<20 + slack},
		{"1 MiB dropped", func() any { _ = make([]byte, 1<<20); return nil }, -slack, slack},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Retained(tt.build); got < tt.min || got > tt.max {
				t.Errorf("Retained = %d bytes, want %d to %d", got, tt.min, tt.max)
			}
		})
	}
}

func TestMallocs(t *testing.T) {
	tests := []struct {
		name string
		f    func()
		want uint64
	}{
		{"none", func() {}, 0},
		{"one a call", func() { sink = make([]byte, 64) }, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Mallocs(100, tt.f); got != tt.want {
				t.Errorf("Mallocs(100) = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestBytes(t *testing.T) {
	tests := []struct {
		name     string
		f        func()
		min, max uint64
	}{
		{"none", func() {}, 0, 1 << 10},
		{"1 MiB", func() { sink = make([]byte, 1<<20) }, 1 << 20, 1<<20 + 1<<10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Bytes(tt.f); got < tt.min || got > tt.max {
				t.Errorf("Bytes = %d, want %d to %d", got, tt.min, tt.max)
			}
		})
	}
}
