package reclaim

import (
	"context"
	"errors"
	"time"
)

// OrphanAge is how long a Reclaimer must have seen a lock without its
// holder before it marks it: a create in flight takes milliseconds.
const OrphanAge = time.Minute

// SlowCreate is the time from a lock's create request to its IPAddress's
// create response at or above which the creator confirms its lock before
// binding (see Confirm): half of OrphanAge, so that a process whose clock
// runs up to twice as fast as a reclaimer's is still safe.
const SlowCreate = OrphanAge / 2

// Confirm decides whether the creator of lock l, whose IPAddress now
// exists, may bind its claim to the address; elapsed is the time from
// l's create request to the IPAddress's create response, by the
// creator's monotonic clock. Below SlowCreate it holds without a request.
// Otherwise it reads l: gone, re-created or another holder's means false
// (the address is lost: delete the IPAddress, pick again); marked, it
// clears the mark conditionally and holds once that write succeeds.
// An error is the Store's; the caller retries later and binds nothing.
func Confirm(ctx context.Context, s Store, l Lock, elapsed time.Duration) (bool, error) {
	if elapsed < SlowCreate {
		return true, nil
	}
	return Recheck(ctx, s, l)
}

// Recheck is Confirm whatever the time taken: what a retry uses, which
// finds an IPAddress it (or a stopped process) created without knowing
// how long ago.
func Recheck(ctx context.Context, s Store, l Lock) (bool, error) {
	for {
		cur, err := s.GetLock(ctx, l.Name)
		switch {
		case errors.Is(err, ErrNotFound):
			return false, nil
		case err != nil:
			return false, err
		case cur.UID != l.UID || cur.Holder != l.Holder:
			return false, nil
		case !cur.Marked:
			return true, nil
		}
		switch _, err := s.SetMark(ctx, cur, false); {
		case err == nil:
			return true, nil
		case errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound):
			continue // written or deleted since: read it again
		default:
			return false, err
		}
	}
}
