package agent

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"time"
)

// racyWindow is how long after a file's modification time its stat
// information is not trusted to reveal the next change: file systems stamp
// times from a coarse clock, so a second write of the same size within one
// tick leaves size and modification time unchanged. A file read within
// this window of its modification time is read and hashed again on each
// poll, until it has been still for longer (as git does with "racily
// clean" index entries).
const racyWindow = time.Second

// fileState identifies one version of the pool file: what stat said, to
// skip an unchanged file cheaply, and the content's hash, to skip a rewrite
// that changes nothing.
type fileState struct {
	info    os.FileInfo // nil before the first read
	readAt  time.Time
	sum     [sha256.Size]byte
	readErr string // the last stat or read error, logged once
}

// unchanged reports whether fi shows, for certain, the version s read.
func (s fileState) unchanged(fi os.FileInfo) bool {
	return s.info != nil && os.SameFile(s.info, fi) && // a rename over the file is a new file
		fi.Size() == s.info.Size() && fi.ModTime().Equal(s.info.ModTime()) &&
		s.readAt.Sub(fi.ModTime()) >= racyWindow
}

// LoadFile reads the pool file at path and loads it (see Load). Watch
// starts from the version it read, even if that version did not load.
func (a *Agent) LoadFile(path string) (Update, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Update{}, fmt.Errorf("agent: load pool: %w", err)
	}
	readAt := time.Now()
	data, err := os.ReadFile(path)
	if err != nil {
		return Update{}, fmt.Errorf("agent: load pool: %w", err)
	}
	u, err := a.Load(data)
	a.setSeen(fileState{info: fi, readAt: readAt, sum: sha256.Sum256(data)})
	return u, err
}

// Watch polls the pool file at path every interval until ctx is done, and
// loads it whenever its content changes. A poll reads the file only when
// stat shows a new file, size or modification time, or when the last read
// was too close to the modification time to trust them (see racyWindow);
// it loads what it read only when the SHA-256 differs from the last
// version. Loading is deterministic, so content that failed to load is not
// retried until it changes; a file that cannot be read is logged once and
// polled on. Either way the table being served stays as it is. Write the
// file by renaming a complete new one over it: a half-written file fails to
// decode, and is read again once it is complete. Watch returns ctx.Err().
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
	if err == nil && seen.unchanged(fi) {
		if seen.readErr != "" {
			seen.readErr = ""
			a.setSeen(seen)
		}
		return
	}
	var data []byte
	readAt := time.Now()
	if err == nil {
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
	now := fileState{info: fi, readAt: readAt, sum: sha256.Sum256(data)}
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
