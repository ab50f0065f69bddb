package reclaim

import (
	"context"
	"errors"
	"time"
)

// creator is one claim's process, as capiipam's claim path runs it: lock
// the first free address, create the IPAddress, confirm, bind; an address
// lost is given up (the IPAddress deleted) and the pool tried again, until
// it binds or the run stops it. With crash set it stops right after
// creating its first IPAddress, and a restarted process finds that
// IPAddress and rechecks its lock (Recheck) before it binds or gives it
// up. locked is called after each lock it creates (the model stalls it
// there).
func creator(p *proxy, claim string, addrs []string, crash bool, locked func(), confirm func(context.Context, Store, Lock, time.Duration) (bool, error)) error {
	ctx := context.Background()
	for {
		for _, addr := range addrs {
			start := p.clock()
			l, err := p.createLock(addr, claim)
			if errors.Is(err, ErrConflict) {
				continue
			}
			if err != nil {
				return err
			}
			locked()
			if err := p.createAddress(claim, addr); err != nil {
				return err
			}
			var ok bool
			if crash {
				crash = false
				if ok, err = restarted(p, claim); err != nil {
					return err
				}
			} else if ok, err = confirm(ctx, p, l, p.clock()-start); err != nil {
				return err
			}
			if ok {
				return p.bind(claim, addr)
			}
			if err := p.deleteAddress(claim); err != nil {
				return err
			}
		}
	}
}

// restarted is what a restarted process does with the IPAddress it finds
// for claim (capiipam's addressLocks.recheck): it reads the lock of that
// address and rechecks it; a lock gone is taken again, and lost when
// another took it first.
func restarted(p *proxy, claim string) (bool, error) {
	ctx := context.Background()
	addr, found, err := p.address(claim)
	if err != nil || !found {
		return false, err
	}
	cur, err := p.GetLock(ctx, addr)
	switch {
	case errors.Is(err, ErrNotFound):
		_, err := p.createLock(addr, claim)
		if errors.Is(err, ErrConflict) {
			return false, nil
		}
		return err == nil, err
	case err != nil:
		return false, err
	case cur.Holder != claim:
		return false, nil
	}
	return Recheck(ctx, p, cur)
}

// reclaimer is one process's reclaimer, passing over the pool's
// addresses until the run stops it: every lock without its holder is
// considered.
func reclaimer(p *proxy, r *Reclaimer, addrs []string) error {
	ctx := context.Background()
	for {
		for _, addr := range addrs {
			l, err := p.GetLock(ctx, addr)
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			held, err := p.HolderExists(ctx, l)
			if err != nil {
				return err
			}
			if !held {
				if _, err := r.Consider(ctx, p, l, p.clock()); err != nil {
					return err
				}
			}
		}
	}
}
