package ipam

import "testing"

// BenchmarkRestoreStatusMap: a controller's restart, from the status map
// its custom resource holds (16,000 allocations in a /16, as
// FormatAllocated writes them) to a pool, by ParseAllocated then Restore
// ("parse+restore") and by RestoreAllocated ("restore-allocated"), beside
// Restore of the snapshot ParseAllocated returns ("parsed"): what the
// status map costs over the pool itself.
func BenchmarkRestoreStatusMap(b *testing.B) {
	snap := restoreInput("10.0.0.0/16", 16000)
	status := FormatAllocated(snap)
	parsed, problems := ParseAllocated(snap.Spec, status)
	if len(problems) != 0 {
		b.Fatal(problems)
	}
	b.Run("16k-v4-16/parsed", func(b *testing.B) {
		m := newMeter(b)
		for range b.N {
			if _, problems, err := Restore(parsed); err != nil || len(problems) != 0 {
				b.Fatal(problems, err)
			}
		}
		m.report(len(snap.Allocations))
	})
	b.Run("16k-v4-16/parse+restore", func(b *testing.B) {
		m := newMeter(b)
		for range b.N {
			parsed, problems := ParseAllocated(snap.Spec, status)
			if len(problems) != 0 {
				b.Fatal(problems)
			}
			if _, problems, err := Restore(parsed); err != nil || len(problems) != 0 {
				b.Fatal(problems, err)
			}
		}
		m.report(len(snap.Allocations))
	})
	b.Run("16k-v4-16/restore-allocated", func(b *testing.B) {
		m := newMeter(b)
		for range b.N {
			if _, problems, err := RestoreAllocated(snap.Spec, status); err != nil || len(problems) != 0 {
				b.Fatal(problems, err)
			}
		}
		m.report(len(snap.Allocations))
	})
}
