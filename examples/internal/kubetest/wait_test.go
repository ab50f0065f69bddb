package kubetest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fatalTB records the first Fatalf and ends the goroutine, as testing.T does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestEventually(t *testing.T) {
	tests := []struct {
		name    string
		okAt    int // the call on which cond first holds; 0: never
		timeout time.Duration
		wantMsg string // "" when Eventually returns
	}{
		{name: "holds at once", okAt: 1, timeout: time.Second},
		{name: "holds on the third poll", okAt: 3, timeout: 10 * time.Second},
		{name: "never holds", okAt: 0, timeout: 200 * time.Millisecond, wantMsg: "after 200ms, still not ready: call "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := &fatalTB{TB: t}
			calls := 0
			done := make(chan struct{})
			go func() {
				defer close(done)
				Eventually(tb, tt.timeout, "ready", func() (bool, string) {
					calls++
					return calls == tt.okAt, fmt.Sprintf("call %d", calls)
				})
			}()
			<-done
			if tt.wantMsg == "" {
				if tb.msg != "" || calls != tt.okAt {
					t.Errorf("Eventually: %d calls, failure %q; want %d calls, no failure", calls, tb.msg, tt.okAt)
				}
				return
			}
			if !strings.HasPrefix(tb.msg, tt.wantMsg) || calls < 2 {
				t.Errorf("Eventually: %d calls, failure %q; want at least 2 calls, failure %q...", calls, tb.msg, tt.wantMsg)
			}
		})
	}
}
