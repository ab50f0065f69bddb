package reclaim

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// world is the API server of the model: locks by name (the address),
// IPAddresses by holder name (the claim's), and the claims bound, each
// change atomic, as etcd makes them.
type world struct {
	now   time.Duration // the model's real time
	locks map[string]*lockRec
	uids  int
	addrs map[string]string // IPAddress (holder) -> address
	bound map[string]string // claim -> address
}

type lockRec struct {
	uid     string
	version int
	holder  string
	marked  bool
}

func newWorld() *world {
	return &world{locks: map[string]*lockRec{}, addrs: map[string]string{}, bound: map[string]string{}}
}

func (w *world) lock(name string) (Lock, bool) {
	r, ok := w.locks[name]
	if !ok {
		return Lock{}, false
	}
	return Lock{Name: name, UID: r.uid, Version: strconv.Itoa(r.version), Holder: r.holder, Marked: r.marked}, true
}

// check is the invariant: no two claims bound to one address, and every
// bound claim's address locked for it.
func (w *world) check() error {
	by := map[string]string{}
	for claim, addr := range w.bound {
		if other, ok := by[addr]; ok {
			return fmt.Errorf("claims %s and %s both bound to %s", other, claim, addr)
		}
		by[addr] = claim
		if l, ok := w.lock(addr); !ok || l.Holder != claim {
			return fmt.Errorf("claim %s bound to %s, whose lock is %+v (exists: %v)", claim, addr, l, ok)
		}
	}
	return nil
}

// errStopped ends an actor at the end of a run.
var errStopped = errors.New("stopped")

// proxy is one actor's Store: each call is one step the scheduler runs
// when it chooses this actor, so that every interleaving of the actors'
// requests can happen.
type proxy struct {
	w    *world
	ops  chan func(*world) // the actor's next request
	done chan struct{}     // the scheduler ran it
	stop chan struct{}
	rate float64 // this actor's clock runs at rate times real time
}

func (p *proxy) do(f func(*world)) error {
	select {
	case p.ops <- f:
	case <-p.stop:
		return errStopped
	}
	select {
	case <-p.done:
		return nil
	case <-p.stop:
		return errStopped
	}
}

// clock is the actor's monotonic clock; read between its requests, while
// the scheduler waits for its next one.
func (p *proxy) clock() time.Duration { return time.Duration(float64(p.w.now) * p.rate) }

func (p *proxy) GetLock(_ context.Context, name string) (l Lock, err error) {
	if e := p.do(func(w *world) {
		var ok bool
		if l, ok = w.lock(name); !ok {
			err = ErrNotFound
		}
	}); e != nil {
		return Lock{}, e
	}
	return l, err
}

func (p *proxy) SetMark(_ context.Context, l Lock, marked bool) (out Lock, err error) {
	if e := p.do(func(w *world) {
		r, ok := w.locks[l.Name]
		switch {
		case !ok:
			err = ErrNotFound
		case r.uid != l.UID || strconv.Itoa(r.version) != l.Version:
			err = ErrConflict
		default:
			r.marked = marked
			r.version++
			out, _ = w.lock(l.Name)
		}
	}); e != nil {
		return Lock{}, e
	}
	return out, err
}

func (p *proxy) DeleteLock(_ context.Context, l Lock) (err error) {
	if e := p.do(func(w *world) {
		r, ok := w.locks[l.Name]
		switch {
		case !ok:
			err = ErrNotFound
		case r.uid != l.UID || strconv.Itoa(r.version) != l.Version:
			err = ErrConflict
		default:
			delete(w.locks, l.Name)
		}
	}); e != nil {
		return e
	}
	return err
}

func (p *proxy) HolderExists(_ context.Context, l Lock) (ok bool, err error) {
	if e := p.do(func(w *world) { _, ok = w.addrs[l.Holder] }); e != nil {
		return false, e
	}
	return ok, nil
}

// createLock creates the lock of addr for holder; ErrConflict when one
// exists (AlreadyExists).
func (p *proxy) createLock(addr, holder string) (l Lock, err error) {
	if e := p.do(func(w *world) {
		if _, ok := w.locks[addr]; ok {
			err = ErrConflict
			return
		}
		w.uids++
		w.locks[addr] = &lockRec{uid: "u" + strconv.Itoa(w.uids), version: 1, holder: holder}
		l, _ = w.lock(addr)
	}); e != nil {
		return Lock{}, e
	}
	return l, err
}

func (p *proxy) createAddress(holder, addr string) error {
	return p.do(func(w *world) { w.addrs[holder] = addr })
}

// address reads the IPAddress named holder, if any.
func (p *proxy) address(holder string) (addr string, ok bool, err error) {
	err = p.do(func(w *world) { addr, ok = w.addrs[holder] })
	return addr, ok, err
}

func (p *proxy) deleteAddress(holder string) error {
	return p.do(func(w *world) { delete(w.addrs, holder) })
}

func (p *proxy) bind(claim, addr string) error {
	return p.do(func(w *world) { w.bound[claim] = addr })
}
