package conditions

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// setModel is the plain model of a condition list: the order of types, and
// each type's condition.
type setModel struct {
	order []string
	byTyp map[string]Condition
}

func (m *setModel) list() []Condition {
	var out []Condition
	for _, typ := range m.order {
		out = append(out, m.byTyp[typ])
	}
	return out
}

func TestSetRemoveModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		clock := t0
		var conds []Condition
		model := &setModel{byTyp: map[string]Condition{}}
		genCond := func(t *rapid.T) Condition {
			return Condition{
				Type:               rapid.SampledFrom([]string{"Ready", "CacheReady", "Synced"}).Draw(t, "type"),
				Status:             rapid.SampledFrom([]Status{ConditionTrue, ConditionFalse, ConditionUnknown}).Draw(t, "status"),
				ObservedGeneration: rapid.Int64Range(0, 2).Draw(t, "gen"),
				LastTransitionTime: clock.Add(-time.Hour), // ignored by Set
				Reason:             rapid.SampledFrom([]string{"A", "B"}).Draw(t, "reason"),
				Message:            rapid.SampledFrom([]string{"", "m"}).Draw(t, "message"),
			}
		}
		t.Repeat(map[string]func(*rapid.T){
			"tick": func(t *rapid.T) {
				clock = clock.Add(time.Duration(rapid.Int64Range(0, 3e9).Draw(t, "ns")))
			},
			"set": func(t *rapid.T) {
				c := genCond(t)
				before := slices.Clone(conds)
				got, changed := Set(conds, c, clock)

				want := c
				old, had := model.byTyp[c.Type]
				want.LastTransitionTime = clock.UTC().Truncate(time.Second)
				if had && old.Status == c.Status {
					want.LastTransitionTime = old.LastTransitionTime
				}
				wantChanged := !had || old != want
				if !had {
					model.order = append(model.order, c.Type)
				}
				model.byTyp[c.Type] = want

				if changed != wantChanged {
					t.Fatalf("Set(%+v) changed = %v, model says %v", c, changed, wantChanged)
				}
				if diff := cmp.Diff(before, conds); diff != "" {
					t.Fatalf("Set wrote to its input (-before +after):\n%s", diff)
				}
				conds = got
			},
			"remove": func(t *rapid.T) {
				typ := rapid.SampledFrom([]string{"Ready", "CacheReady", "Synced"}).Draw(t, "type")
				got, removed := Remove(conds, typ)
				_, had := model.byTyp[typ]
				if removed != had {
					t.Fatalf("Remove(%q) = %v, model had it: %v", typ, removed, had)
				}
				delete(model.byTyp, typ)
				model.order = slices.DeleteFunc(model.order, func(s string) bool { return s == typ })
				conds = got
			},
			"": func(t *rapid.T) {
				if diff := cmp.Diff(model.list(), conds, cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("conditions (-model +got):\n%s", diff)
				}
				for _, typ := range []string{"Ready", "CacheReady", "Synced", "Absent"} {
					c, ok := model.byTyp[typ]
					if IsTrue(conds, typ) != (ok && c.Status == ConditionTrue) ||
						IsFalse(conds, typ) != (ok && c.Status == ConditionFalse) ||
						IsUnknown(conds, typ) != (!ok || c.Status == ConditionUnknown) {
						t.Fatalf("status predicates disagree with the model for %q", typ)
					}
					if got, gotOK := Find(conds, typ); gotOK != ok || got != c {
						t.Fatalf("Find(%q) = %+v, %v; model %+v, %v", typ, got, gotOK, c, ok)
					}
				}
			},
		})
	})
}
