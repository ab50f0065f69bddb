package poolsource

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/go-logr/logr"
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

// File is the pool as a JSON file (the IPPool object, as kubectl get
// ippool -o json prints it), watched for changes. Make one with NewFile;
// the zero File is not usable. Its methods are safe for concurrent use.
type File struct {
	path  string
	apply Apply
	log   logr.Logger

	mu   sync.Mutex
	seen fileState // the file as last read
}

// NewFile returns the source of the pool file at path, which delivers
// each version that decodes to apply and logs to log what it cannot
// read or decode. It reads nothing yet: see Load and Watch.
func NewFile(path string, apply Apply, log logr.Logger) *File {
	return &File{path: path, apply: apply, log: log}
}

// Load reads the pool file and delivers it (see Deliver). Watch
// starts from the version it read, even if that version did not load.
func (f *File) Load() error {
	fi, err := os.Stat(f.path)
	if err != nil {
		return fmt.Errorf("agent: load pool: %w", err)
	}
	readAt := time.Now()
	data, err := os.ReadFile(f.path)
	if err != nil {
		return fmt.Errorf("agent: load pool: %w", err)
	}
	err = Deliver(data, f.apply, f.log)
	f.setSeen(fileState{info: fi, readAt: readAt, sum: sha256.Sum256(data)})
	return err
}

// Watch loads the pool file whenever its content changes, until
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
func (f *File) Watch(ctx context.Context, interval time.Duration) error {
	path := f.path
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
		f.log.Error(err, "cannot watch the pool file's directory; checking it every interval only",
			"path", path, "interval", interval.String())
	} else {
		events, errs = w.Events, w.Errors
	}
	// A change between the first load and the watch's start is caught here.
	f.poll()
	name := filepath.Clean(path)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e := <-events:
			if filepath.Clean(e.Name) == name {
				f.poll()
			}
		case err := <-errs:
			f.log.Error(err, "pool file watch", "path", path)
		case <-t.C:
			f.poll()
		}
	}
}

// poll loads path if its content changed since it was last read.
func (f *File) poll() {
	path := f.path
	f.mu.Lock()
	seen := f.seen
	f.mu.Unlock()

	fi, err := os.Stat(path)
	if err == nil && seen.unchanged(fi) {
		if seen.readErr != "" {
			seen.readErr = ""
			f.setSeen(seen)
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
			f.log.Error(err, "pool file unreadable, table unchanged", "path", path)
			seen.readErr = msg
			f.setSeen(seen)
		}
		return
	}
	now := fileState{info: fi, readAt: readAt, sum: sha256.Sum256(data)}
	if now.sum != seen.sum {
		_ = Deliver(data, f.apply, f.log) // logged
	}
	f.setSeen(now)
}

func (f *File) setSeen(s fileState) {
	f.mu.Lock()
	f.seen = s
	f.mu.Unlock()
}
