package reclaim

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Reclaimer deletes locks whose holder has been missing for OrphanAge.
// Its zero value is ready; it is safe for concurrent use. It remembers,
// per lock UID, when it first saw that lock without its holder, by the
// monotonic time its caller passes: the API server's creation time is
// another process's clock and would make a lock old at once after a
// clock step.
type Reclaimer struct {
	mu   sync.Mutex
	seen map[string]time.Duration
}

// Consider is called with a lock l just read and found without its
// holder, at now (a monotonic reading of this process: time.Since of a
// fixed start). It returns true when it deleted l, after the handshake
// (see the package documentation); false when l is not old enough yet,
// or a write or holder showed that l is in use. An error is the Store's;
// l may then stay marked, which only a creator or a later Consider
// clears.
func (r *Reclaimer) Consider(ctx context.Context, s Store, l Lock, now time.Duration) (bool, error) {
	if !r.due(l.UID, now) {
		return false, nil
	}
	marked, err := s.SetMark(ctx, l, true)
	if errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) {
		r.forget(l.UID) // written or gone since it was read: look again from the start
		return false, nil
	}
	if err != nil {
		return false, err
	}
	held, err := s.HolderExists(ctx, marked)
	if err != nil {
		return false, err
	}
	if held {
		r.forget(l.UID)
		_, err := s.SetMark(ctx, marked, false)
		if errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) {
			err = nil // its creator cleared it, or released the address
		}
		return false, err
	}
	switch err := s.DeleteLock(ctx, marked); {
	case err == nil:
		r.forget(l.UID)
		return true, nil
	case errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound):
		r.forget(l.UID)
		return false, nil
	default:
		return false, err
	}
}

// due notes the first sight of lock uid without its holder and reports
// whether it was OrphanAge or more before now.
func (r *Reclaimer) due(uid string, now time.Duration) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = make(map[string]time.Duration)
	}
	first, ok := r.seen[uid]
	if !ok {
		r.seen[uid] = now
		return false
	}
	return now-first >= OrphanAge
}

// forget drops what r remembers of lock uid.
func (r *Reclaimer) forget(uid string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.seen, uid)
}
