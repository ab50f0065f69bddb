package reclaim

import (
	"context"
	"errors"
)

// Errors a Store returns; the package branches on them with errors.Is.
var (
	// ErrNotFound: the object does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict: a conditional write's precondition failed (the object
	// was written or re-created since it was read).
	ErrConflict = errors.New("conflict")
)

// Lock is what the handshake reads of an address lock. UID tells a lock
// from a later one of the same name; Version is its resourceVersion, the
// precondition of every write; Holder names the IPAddress it is for.
type Lock struct {
	Name, UID, Version string
	Holder             string
	// Marked: a reclaimer is about to delete it (see Reclaimer).
	Marked bool
}

// Store is the API server as the handshake uses it: every read from the
// server itself, every write conditional on a Lock's UID and Version.
type Store interface {
	// GetLock reads the lock named name (ErrNotFound when there is none).
	GetLock(ctx context.Context, name string) (Lock, error)
	// SetMark writes l with Marked set to marked, if it is still as read
	// (ErrConflict, or ErrNotFound when gone), and returns it as written.
	SetMark(ctx context.Context, l Lock, marked bool) (Lock, error)
	// DeleteLock deletes l if it is still as read (ErrConflict, or
	// ErrNotFound when gone).
	DeleteLock(ctx context.Context, l Lock) error
	// HolderExists reports whether l's holder exists.
	HolderExists(ctx context.Context, l Lock) (bool, error)
}
