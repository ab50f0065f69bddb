package agent

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"time"
)

// fileState identifies one version of the pool file: what stat says, to
// skip an unchanged file cheaply, and the content's hash, to skip a rewrite
// that changes nothing.
type fileState struct {
	modTime time.Time
	size    int64
	sum     [sha256.Size]byte
	readErr string // the last stat or read error, logged once
}

// LoadFile reads the pool file at path and loads it (see Load). Watch
// starts from the version it read, even if that version did not load.
func (a *Agent) LoadFile(path string) (Update, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Update{}, fmt.Errorf("agent: load pool: %w", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Update{}, fmt.Errorf("agent: load pool: %w", err)
	}
	u, err := a.Load(data)
	a.setSeen(fileState{modTime: fi.ModTime(), size: fi.Size(), sum: sha256.Sum256(data)})
	return u, err
}

// Watch polls the pool file at path every interval until ctx is done, and
// loads it whenever its content changes: a new size or modification time
// first, then a new SHA-256. Loading is deterministic, so content that
// failed to load is not retried until it changes; a file that cannot be
// read is logged once and polled on. Either way the table being served
// stays as it is. Write the file by renaming a complete new one over it: a
// half-written file fails to decode, and is read again once it is
// complete. Watch returns ctx.Err().
func (a *Agent) Watch(ctx context.Context, path string, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			a.poll(path)
		}
	}
}

// poll loads path if its content changed since it was last read.
func (a *Agent) poll(path string) {
	a.mu.Lock()
	seen := a.seen
	a.mu.Unlock()

	fi, err := os.Stat(path)
	var data []byte
	changed := err == nil && (!fi.ModTime().Equal(seen.modTime) || fi.Size() != seen.size)
	if changed {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		if msg := err.Error(); msg != seen.readErr {
			a.log.Error("pool file unreadable, table unchanged", "path", path, "err", err)
			seen.readErr = msg
			a.setSeen(seen)
		}
		return
	}
	seen.readErr = ""
	if !changed {
		a.setSeen(seen)
		return
	}
	now := fileState{modTime: fi.ModTime(), size: fi.Size(), sum: sha256.Sum256(data)}
	if now.sum != seen.sum {
		a.Load(data) // logs its outcome
	}
	a.setSeen(now)
}

func (a *Agent) setSeen(s fileState) {
	a.mu.Lock()
	a.seen = s
	a.mu.Unlock()
}
