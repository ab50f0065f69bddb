package kubetest

import (
	"errors"
	"sync"
	"sync/atomic"
)

// InParallel runs f(0) to f(n-1) on workers goroutines, each call once,
// and returns their errors joined (nil when none failed): a test's many
// creates or deletes at once, as a burst of users would make them.
func InParallel(n, workers int, f func(i int) error) error {
	var (
		wg   sync.WaitGroup
		next atomic.Int64
		mu   sync.Mutex
		errs []error
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if err := f(i); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
