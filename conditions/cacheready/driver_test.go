package cacheready

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/vmnetkit/vmnetkit/conditions"
)

// driverLog records the side effects of a Driver, or of the reference loop,
// in order.
type driverLog struct {
	calls                   []string
	failPublish, failBuilds []bool // consumed one per call
	builds                  int
}

func (l *driverLog) next(fails *[]bool) bool {
	if len(*fails) == 0 {
		return false
	}
	f := (*fails)[0]
	*fails = (*fails)[1:]
	return f
}

func (l *driverLog) publish(c conditions.Condition, epoch string, built int, fresh bool) error {
	if l.next(&l.failPublish) {
		l.calls = append(l.calls, fmt.Sprintf("publish %s/%s failed", c.Status, c.Reason))
		return errors.New("conflict")
	}
	l.calls = append(l.calls, fmt.Sprintf("publish %s/%s gen %d epoch %s built %d fresh %t", c.Status, c.Reason, c.ObservedGeneration, epoch, built, fresh))
	return nil
}

func (l *driverLog) build(gen int64) (int, error) {
	l.builds++
	if l.next(&l.failBuilds) {
		l.calls = append(l.calls, fmt.Sprintf("build %d failed", gen))
		return 0, errors.New("status holds garbage")
	}
	l.calls = append(l.calls, fmt.Sprintf("build %d -> cache #%d", gen, l.builds))
	return l.builds, nil
}

func (l *driverLog) driver() Driver[int] {
	return Driver[int]{
		Publish: l.publish,
		Build:   l.build,
		Adopt:   func(c int) { l.calls = append(l.calls, fmt.Sprintf("adopt cache #%d", c)) },
		Drop:    func() { l.calls = append(l.calls, "drop") },
	}
}

// referenceLoop is the loop the operator and capiipam each wrote before
// Driver, kept as the plain model Driver must match.
func referenceLoop(l *driverLog, m Machine, ev Event) (Machine, error) {
	built, haveBuilt := 0, false
	for ev != nil {
		next, d := m.Step(ev)
		ev = nil
		if d.Publish != nil {
			if err := l.publish(*d.Publish, d.Epoch, built, haveBuilt); err != nil {
				return m, err
			}
		}
		m = next
		if haveBuilt {
			l.calls = append(l.calls, fmt.Sprintf("adopt cache #%d", built))
			built, haveBuilt = 0, false
		}
		if d.Drop {
			l.calls = append(l.calls, "drop")
		}
		if d.Build {
			c, err := l.build(m.Generation())
			if err != nil {
				ev = BuildFailed{Generation: m.Generation(), Err: err}
				continue
			}
			built, haveBuilt = c, true
			ev = BuildSucceeded{Generation: m.Generation()}
		}
	}
	return m, nil
}

// TestDriverMatchesReferenceLoop runs Driver.Run and the reference loop side
// by side over random event sequences, with builds and writes failing at
// random: the same side effects in the same order, the same machines.
func TestDriverMatchesReferenceLoop(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		fails := func(label string) []bool { return rapid.SliceOfN(rapid.Bool(), 0, 8).Draw(t, label) }
		a := &driverLog{failPublish: fails("failPublish"), failBuilds: fails("failBuilds")}
		b := &driverLog{failPublish: append([]bool(nil), a.failPublish...), failBuilds: append([]bool(nil), a.failBuilds...)}
		ma, mb := New("epoch-a"), New("epoch-a")
		gen := int64(1)
		var stored *conditions.Condition
		for i := range rapid.IntRange(1, 12).Draw(t, "events") {
			var ev Event
			switch rapid.IntRange(0, 5).Draw(t, fmt.Sprintf("event %d", i)) {
			case 0, 1:
				ev = Observed{Generation: gen, Stored: stored, StoredEpoch: rapid.SampledFrom([]string{"", "epoch-a", "epoch-old"}).Draw(t, "storedEpoch")}
			case 2:
				gen++
				ev = GenerationChanged{Generation: gen, SpecChanged: rapid.Bool().Draw(t, "specChanged")}
			case 3:
				ev = Dropped{}
			case 4:
				ev = Paused{}
			default:
				ev = Resumed{}
			}
			if rapid.Bool().Draw(t, "storedTrue") {
				stored = &conditions.Condition{Type: Type, Status: conditions.ConditionTrue, ObservedGeneration: gen, Reason: "Built"}
			}
			var errA, errB error
			ma, errA = a.driver().Run(ma, ev)
			mb, errB = referenceLoop(b, mb, ev)
			if (errA == nil) != (errB == nil) {
				t.Fatalf("event %T: Run error %v, reference %v", ev, errA, errB)
			}
			if diff := cmp.Diff(b.calls, a.calls); diff != "" {
				t.Fatalf("after %T, side effects (-reference +Run):\n%s", ev, diff)
			}
			if ma.State() != mb.State() || ma.Generation() != mb.Generation() {
				t.Fatalf("after %T: Run's machine %s gen %d, reference %s gen %d", ev, ma.State(), ma.Generation(), mb.State(), mb.Generation())
			}
		}
	})
}

func TestDriverRestartFlow(t *testing.T) {
	stored := &conditions.Condition{Type: Type, Status: conditions.ConditionTrue, ObservedGeneration: 4, Reason: "Built"}
	tests := []struct {
		name        string
		failPublish []bool
		failBuilds  []bool
		want        []string
		wantErr     bool
	}{
		{
			name: "a restarted process rebuilds before it trusts True",
			want: []string{
				"publish False/OwnerRestarted gen 4 epoch new built 0 fresh false",
				"build 4 -> cache #1",
				"publish True/CacheBuilt gen 4 epoch new built 1 fresh true",
				"adopt cache #1",
			},
		},
		{
			name:       "a failed build publishes the failure and adopts nothing",
			failBuilds: []bool{true},
			want: []string{
				"publish False/OwnerRestarted gen 4 epoch new built 0 fresh false",
				"build 4 failed",
				"publish False/BuildFailed gen 4 epoch new built 0 fresh false",
			},
		},
		{
			name:        "a failed write of the True adopts nothing",
			failPublish: []bool{false, true},
			want: []string{
				"publish False/OwnerRestarted gen 4 epoch new built 0 fresh false",
				"build 4 -> cache #1",
				"publish True/CacheBuilt failed",
			},
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &driverLog{failPublish: tt.failPublish, failBuilds: tt.failBuilds}
			_, err := l.driver().Run(New("new"), Observed{Generation: 4, Stored: stored, StoredEpoch: "old"})
			if (err != nil) != tt.wantErr {
				t.Errorf("Run error = %v, want error %t", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, l.calls); diff != "" {
				t.Errorf("side effects (-want +got):\n%s", diff)
			}
		})
	}
}
