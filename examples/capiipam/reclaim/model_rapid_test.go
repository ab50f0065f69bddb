package reclaim

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// addrs is the model's pool: two addresses, so that claims contend.
var addrs = []string{"10.0.0.1", "10.0.0.2"}

// run is one model run: three creators (one may crash after its first
// IPAddress, one may stall for up to 60 steps right after its first
// lock, each with a clock up to 25% slow) and two reclaimers (clocks up to
// 50% fast), their requests interleaved as rapid draws, with time
// advancing by draws of up to OrphanAge. The invariant (world.check) is
// checked after every step. A step is a tick one time in five, so 60
// steps are about 230 s: past twice OrphanAge on the slowest clock, with
// most stalls inside the 40-160 s a wrong threshold lets through.
func run(t *rapid.T, confirm func(context.Context, Store, Lock, time.Duration) (bool, error)) {
	w := newWorld()
	stop := make(chan struct{})
	defer close(stop)
	type actor struct {
		name    string
		p       *proxy
		frozen  int          // steps it is not scheduled
		next    func(*world) // its pending request; nil once it ended
		ended   chan error
		stopped bool
	}
	var actors []*actor
	start := func(name string, rate float64, body func(p *proxy) error) {
		a := &actor{name: name, p: &proxy{w: w, ops: make(chan func(*world)), done: make(chan struct{}), stop: stop, rate: rate}, ended: make(chan error, 1)}
		go func() { a.ended <- body(a.p) }()
		actors = append(actors, a)
	}
	// await waits for a's next request, or its end.
	await := func(a *actor) {
		select {
		case a.next = <-a.p.ops:
		case err := <-a.ended:
			a.next, a.stopped = nil, true
			if err != nil {
				t.Fatalf("%s: %v", a.name, err)
			}
		}
	}
	crasher := rapid.IntRange(-1, 2).Draw(t, "crasher")
	staller := rapid.IntRange(-1, 2).Draw(t, "staller")
	stall := rapid.IntRange(0, 60).Draw(t, "stall")
	for i := range 3 {
		claim := fmt.Sprintf("claim-%d", i)
		rate := rapid.SampledFrom([]float64{0.75, 1}).Draw(t, claim+" clock")
		locked := func() {}
		if i == staller {
			locked = func() { // runs on the actor's goroutine, between two of its requests
				actors[i].frozen, stall = stall, 0
			}
		}
		start(claim, rate, func(p *proxy) error { return creator(p, claim, addrs, i == crasher, locked, confirm) })
	}
	for i := range 2 {
		name := fmt.Sprintf("reclaimer-%d", i)
		rate := rapid.SampledFrom([]float64{1, 1.5}).Draw(t, name+" clock")
		r := &Reclaimer{}
		start(name, rate, func(p *proxy) error { return reclaimer(p, r, addrs) })
	}
	for _, a := range actors {
		await(a)
	}
	steps := []time.Duration{time.Second, 5 * time.Second, 10 * time.Second, 20 * time.Second, OrphanAge}
	for step := 0; step < 300; step++ {
		var live []*actor
		creators := 0
		for i, a := range actors {
			if a.frozen > 0 {
				a.frozen--
				continue
			}
			if !a.stopped {
				live = append(live, a)
				if i < 3 {
					creators++
				}
			}
		}
		if creators == 0 && !slices.ContainsFunc(actors[:3], func(a *actor) bool { return !a.stopped }) {
			break // every creator ended; only the reclaimers go on
		}
		if rapid.IntRange(0, 4).Draw(t, "tick?") == 0 {
			w.now += rapid.SampledFrom(steps).Draw(t, "tick")
			continue
		}
		a := live[rapid.IntRange(0, len(live)-1).Draw(t, "actor")]
		a.next(w)
		a.p.done <- struct{}{}
		await(a)
		if err := w.check(); err != nil {
			t.Fatalf("after a step of %s at %v: %v", a.name, w.now, err)
		}
	}
}

// TestHandshake: whatever the interleaving, the stalls, the clocks (within
// a factor of two) and a crash after an IPAddress, no two claims are bound
// to one address, and a bound claim's lock is its own.
func TestHandshake(t *testing.T) {
	// Ten rounds of rapid's default 100 runs: a schedule that defeats
	// a wrong threshold (SlowCreate at twice OrphanAge) takes about 150
	// runs to find (see mutantRounds).
	for range 10 {
		rapid.Check(t, func(t *rapid.T) { run(t, Confirm) })
	}
}

// TestHandshakeMutants: the same model fails, with a stalled creator
// binding an address reclaimed and handed to another claim meanwhile
// (bound beside it, or bound while the lock is the other claim's), when
// the creator's recheck is removed, and when it comes only after a create
// slower than twice OrphanAge (a threshold the clocks' spread defeats).
// Each mutant gets up to mutantRounds rounds of rapid's 100 runs.
func TestHandshakeMutants(t *testing.T) {
	// A mutant's failure is expected: no fail file, and a second of
	// shrinking rather than rapid's 30 (the test reads only its kind).
	for name, value := range map[string]string{"rapid.nofailfile": "true", "rapid.shrinktime": "1s"} {
		was := flag.Lookup(name).Value.String()
		if err := flag.Set(name, value); err != nil {
			t.Fatal(err)
		}
		defer flag.Set(name, was)
	}
	for _, tc := range []struct {
		name    string
		confirm func(context.Context, Store, Lock, time.Duration) (bool, error)
	}{
		{"no recheck", func(context.Context, Store, Lock, time.Duration) (bool, error) { return true, nil }},
		{"recheck after twice OrphanAge", func(ctx context.Context, s Store, l Lock, elapsed time.Duration) (bool, error) {
			if elapsed < 2*OrphanAge {
				return true, nil
			}
			return Recheck(ctx, s, l)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recordingTB{TB: t}
			for i := 0; i < mutantRounds && !rec.failed; i++ {
				rapid.Check(rec, func(t *rapid.T) { run(t, tc.confirm) })
			}
			if !rec.failed {
				t.Fatal("the model found no two claims on one address")
			}
			if !strings.Contains(rec.log.String(), " bound to ") {
				t.Errorf("the failure is not a claim bound to another's address:\n%s", rec.log.String())
			}
		})
	}
}

// mutantRounds bounds the search for a mutant's failure. With stalls of
// up to 60 steps, 150 searches for the twice-OrphanAge mutant took 1.45
// rounds of 100 runs on average and 5 at most (with stalls of up to 200
// steps: 2.2 on average, 16 at most, and ten rounds once missed it in
// CI). Only a mutant the model cannot catch costs all of them.
const mutantRounds = 50

// recordingTB takes a rapid.Check's failure instead of failing the test.
type recordingTB struct {
	testing.TB
	failed bool
	log    strings.Builder
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.failed = true
	fmt.Fprintf(&r.log, format+"\n", args...)
}
func (r *recordingTB) Error(args ...any)                 { r.failed = true; fmt.Fprintln(&r.log, args...) }
func (r *recordingTB) Fatalf(format string, args ...any) { r.Errorf(format, args...); r.FailNow() }
func (r *recordingTB) Fatal(args ...any)                 { r.Error(args...); r.FailNow() }
func (r *recordingTB) Fail()                             { r.failed = true }
func (r *recordingTB) FailNow()                          { r.failed = true }
func (r *recordingTB) Failed() bool                      { return r.failed }
func (r *recordingTB) Logf(format string, args ...any)   { fmt.Fprintf(&r.log, format+"\n", args...) }
func (r *recordingTB) Log(args ...any)                   { fmt.Fprintln(&r.log, args...) }
