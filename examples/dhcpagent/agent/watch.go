package agent

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
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

// Watch loads the pool file at path whenever its content changes, until
// ctx is done, and returns ctx.Err(). It watches the file's directory with
// inotify (fsnotify), so a change is loaded as soon as it is written, and a
// writer that renames a new file over the old one (as editors and
// kubectl-driven scripts do) is seen too; as a fallback for file systems
// that send no events (NFS, some container mounts) it also checks every
// interval. When the directory cannot be watched it logs why and checks
// every interval only.
//
// A check reads the file only when stat shows a new file, size or
// modification time, or when the last read was too close to the
// modification time to trust them (see racyWindow); it loads what it read
// only when the SHA-256 differs from the last version. Loading is
// deterministic, so content that failed to load is not retried until it
// changes; a file that cannot be read is logged once and checked on.
// Either way the table being served stays as it is. Write the file by
// renaming a complete new one over it: a half-written file fails to
// decode, and is read again once it is complete.
func (a *Agent) Watch(ctx context.Context, path string, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	var events <-chan fsnotify.Event
	var errs <-chan error
	w, err := fsnotify.NewWatcher()
	if err == nil {
		defer w.Close()
		err = w.Add(filepath.Dir(path))
	}
	if err != nil {
		a.log.Error(err, "cannot watch the pool file's directory; checking it every interval only",
			"path", path, "interval", interval.String())
	} else {
		events, errs = w.Events, w.Errors
	}
	// A change between the first load and the watch's start is caught here.
	a.poll(path)
	name := filepath.Clean(path)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e := <-events:
			if filepath.Clean(e.Name) == name {
				a.poll(path)
			}
		case err := <-errs:
			a.log.Error(err, "pool file watch", "path", path)
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
			a.log.Error(err, "pool file unreadable, table unchanged", "path", path)
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
