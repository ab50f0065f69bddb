package kubetest

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// recorder is a testing.TB whose Fatal ends only the goroutine it runs in,
// so a test can watch another test helper fail.
type recorder struct {
	testing.TB
	fatal []string
	logs  []string
}

func (r *recorder) Helper()                    {}
func (r *recorder) Logf(f string, args ...any) { r.logs = append(r.logs, fmt.Sprintf(f, args...)) }
func (r *recorder) Fatal(args ...any) {
	r.fatal = append(r.fatal, fmt.Sprint(args...))
	runtime.Goexit()
}
func (r *recorder) Fatalf(f string, args ...any) { r.Fatal(fmt.Sprintf(f, args...)) }

// config calls s.Config(r) in its own goroutine, as a test would, and
// returns its result (nil when it failed r).
func config(s *Shared, r *recorder) *rest.Config {
	var cfg *rest.Config
	done := make(chan struct{})
	go func() {
		defer close(done)
		cfg = s.Config(r)
	}()
	<-done
	return cfg
}

func TestSharedStartsOnce(t *testing.T) {
	want := &rest.Config{Host: "https://127.0.0.1:1"}
	var starts, stops int
	var gotPaths []string
	s := &Shared{CRDPaths: []string{"a", "b"}}
	s.start = func(paths ...string) (*rest.Config, func() error, error) {
		starts++
		gotPaths = paths
		return want, func() error { stops++; return nil }, nil
	}
	r := &recorder{TB: t}
	for i := range 3 {
		if got := config(s, r); got != want {
			t.Fatalf("call %d: Config = %v, want the started config", i, got)
		}
	}
	if starts != 1 || strings.Join(gotPaths, ",") != "a,b" {
		t.Errorf("start ran %d times with %q, want once with CRDPaths", starts, gotPaths)
	}
	if len(r.fatal) != 0 || len(r.logs) != 1 {
		t.Errorf("Config failed %q, logged %q; want no failure and one start line", r.fatal, r.logs)
	}
	if err := s.Stop(); err != nil || stops != 1 {
		t.Errorf("Stop = %v after %d stops, want nil after 1", err, stops)
	}
	if err := s.Stop(); err != nil || stops != 1 {
		t.Errorf("second Stop = %v after %d stops, want nil and no second stop", err, stops)
	}
}

func TestSharedStartFails(t *testing.T) {
	startErr := errors.New("kubetest: no binaries")
	var starts int
	s := &Shared{start: func(...string) (*rest.Config, func() error, error) {
		starts++
		return nil, nil, startErr
	}}
	r := &recorder{TB: t}
	for i := range 2 {
		if got := config(s, r); got != nil {
			t.Errorf("call %d: Config = %v after a failed start, want it to fail", i, got)
		}
	}
	want := []string{startErr.Error(), startErr.Error()}
	if strings.Join(r.fatal, "|") != strings.Join(want, "|") || starts != 1 {
		t.Errorf("Config failed with %q after %d starts, want %q after 1: every caller fails, nobody retries", r.fatal, starts, want)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("Stop without a started server = %v, want nil", err)
	}
}

func TestStopAfter(t *testing.T) {
	stopErr := errors.New("etcd did not stop")
	started := func(err error) *Shared {
		return &Shared{stop: func() error { return err }}
	}
	tests := []struct {
		name string
		code int
		s    *Shared
		want int
	}{
		{name: "never started, tests passed", code: 0, s: &Shared{}, want: 0},
		{name: "never started, tests failed", code: 1, s: &Shared{}, want: 1},
		{name: "stopped, tests passed", code: 0, s: started(nil), want: 0},
		{name: "stop failed, tests passed", code: 0, s: started(stopErr), want: 1},
		{name: "stop failed, tests failed", code: 2, s: started(stopErr), want: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stopAfter(tt.code, tt.s); got != tt.want {
				t.Errorf("stopAfter(%d) = %d, want %d", tt.code, got, tt.want)
			}
		})
	}
}

func TestNewScheme(t *testing.T) {
	gv := schema.GroupVersion{Group: "kubetest.vmnetkit.dev", Version: "v1"}
	s := NewScheme(func(s *kruntime.Scheme) error {
		s.AddKnownTypeWithName(gv.WithKind("Thing"), &metav1.Status{})
		return nil
	})
	for _, gvk := range []schema.GroupVersionKind{corev1.SchemeGroupVersion.WithKind("Node"), gv.WithKind("Thing")} {
		if !s.Recognizes(gvk) {
			t.Errorf("NewScheme does not know %v", gvk)
		}
	}
	if NewScheme() == NewScheme() {
		t.Errorf("NewScheme returned the same scheme twice")
	}

	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "refused") {
			t.Errorf("NewScheme with a failing registration: recovered %v, want a panic naming the error", r)
		}
	}()
	NewScheme(func(*kruntime.Scheme) error { return errors.New("refused") })
}
