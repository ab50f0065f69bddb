package cacheready

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vmnetkit/vmnetkit/conditions"
)

// everyEvent holds one value of each Event implementation, with
// fields that make a difference in some state.
var everyEvent = []Event{
	Observed{Generation: 3, Stored: stored(conditions.ConditionTrue, 3, ReasonCacheBuilt, msgBuiltB), StoredEpoch: epochA},
	BuildSucceeded{Generation: 3},
	BuildFailed{Generation: 3, Err: errors.New("restore: bad snapshot")},
	GenerationChanged{Generation: 4, SpecChanged: true},
	Dropped{},
	Paused{},
	Resumed{},
	Deleted{},
}

// pointerTo returns a pointer to a copy of the event e holds.
func pointerTo(e Event) Event {
	p := reflect.New(reflect.TypeOf(e))
	p.Elem().Set(reflect.ValueOf(e))
	return p.Interface().(Event)
}

// nilPointerTo returns a nil pointer of the type of e's pointer.
func nilPointerTo(e Event) Event {
	return reflect.Zero(reflect.PointerTo(reflect.TypeOf(e))).Interface().(Event)
}

// TestCacheEventPointersStepLikeValues protects adapters that pass events by
// pointer: a pointer satisfies the sealed Event (its method set holds the
// value's), so Step must treat it as the value it points to, and a nil one as
// a nil event, never drop it silently.
func TestCacheEventPointersStepLikeValues(t *testing.T) {
	machines := []struct {
		name  string
		steps []cacheStep
	}{
		{"unobserved", nil},
		{"not built", toReady[:1]},
		{"ready", toReady},
		{"failed", toFailed},
		{"paused", toPaused},
	}
	for _, mc := range machines {
		m := New(epochB)
		for _, s := range mc.steps {
			m, _ = m.Step(s.event)
		}
		for _, e := range everyEvent {
			t.Run(mc.name+"/"+reflect.TypeOf(e).Name(), func(t *testing.T) {
				wantM, wantD := m.Step(e)
				gotM, gotD := m.Step(pointerTo(e))
				if diff := cmp.Diff(wantD, gotD); diff != "" {
					t.Errorf("Step(&%T) decision differs from Step(%T) (-want +got):\n%s", e, e, diff)
				}
				if gotM != wantM {
					t.Errorf("Step(&%T) = machine %+v, Step(%T) = %+v", e, gotM, e, wantM)
				}
				nilM, nilD := m.Step(nilPointerTo(e))
				if nilM != m || nilD != (Decision{}) {
					t.Errorf("Step((*%T)(nil)) = %+v, %+v; want the machine unchanged and no decision", e, nilM, nilD)
				}
			})
		}
	}

	// The regression as reported: a pointer observation builds the cache.
	m, d := New("e1").Step(&Observed{Generation: 1})
	if m.State() != StateNotBuilt || !d.Build || d.Publish == nil {
		t.Errorf("Step(&Observed{Generation: 1}) = state %v, decision %+v; want NotBuilt, a build and a publish", m.State(), d)
	}
}

// TestEveryEventIsCovered keeps everyEvent (and with it the pointer
// test above) in step with the sealed set: every type of the package with a
// cacheEvent method is listed.
func TestEveryEventIsCovered(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "events.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var sealed []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || fn.Name.Name != "cacheEvent" {
			continue
		}
		switch r := fn.Recv.List[0].Type.(type) {
		case *ast.Ident:
			sealed = append(sealed, r.Name)
		default:
			t.Errorf("cacheEvent declared on %T; the seal is declared on value receivers", r)
		}
	}
	var listed []string
	for _, e := range everyEvent {
		listed = append(listed, reflect.TypeOf(e).Name())
	}
	slices.Sort(sealed)
	slices.Sort(listed)
	if diff := cmp.Diff(sealed, listed); diff != "" {
		t.Errorf("everyEvent does not list the sealed set (-want +got):\n%s", diff)
	}
}
