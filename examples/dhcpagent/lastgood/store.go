package lastgood

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// format names the file's layout; a file of another format is refused.
const format = "vmnetkit-dhcpagent-last-good/v1"

// fileName is the copy's name in its folder.
const fileName = "pool.last-good"

// Errors Load returns, wrapped with the file's path.
var (
	// ErrNoCopy: the folder holds no copy (a first start).
	ErrNoCopy = errors.New("no last-good copy")
	// ErrCorrupt: the file is torn (shorter or longer than its header
	// says), its data does not match its SHA-256, or its header does
	// not decode.
	ErrCorrupt = errors.New("last-good copy is torn or tampered with")
	// ErrOtherPool: the copy is of another pool than the store's.
	ErrOtherPool = errors.New("last-good copy is of another pool")
)

// Store is the last-good copy of one pool (namespace/name) in a folder.
// The zero Store is not usable; New makes one. Save and Load may be
// called from any goroutine; concurrent Saves leave one of them whole.
type Store struct {
	dir, pool string
}

// New returns the store of pool (namespace/name) in the folder dir, which
// must exist. It touches nothing.
func New(dir, pool string) *Store { return &Store{dir: dir, pool: pool} }

// Path is the copy's file.
func (s *Store) Path() string { return filepath.Join(s.dir, fileName) }

// Copy is a pool's last-good copy as Load read it.
type Copy struct {
	Data            []byte    // the pool's JSON, as the agent loaded it
	ResourceVersion string    // the pool's resourceVersion then
	Written         time.Time // when Save wrote it
}

// header is the file's first line.
type header struct {
	Format          string    `json:"format"`
	Pool            string    `json:"pool"`
	ResourceVersion string    `json:"resourceVersion"`
	Written         time.Time `json:"written"`
	Size            int       `json:"size"`
	SHA256          string    `json:"sha256"`
}

// Save writes data, the pool's JSON at resourceVersion, as the copy,
// written at now, atomically (see the package documentation). On an error
// the previous copy is left as it was.
func (s *Store) Save(data []byte, resourceVersion string, now time.Time) error {
	sum := sha256.Sum256(data)
	h, err := json.Marshal(header{Format: format, Pool: s.pool, ResourceVersion: resourceVersion,
		Written: now.UTC(), Size: len(data), SHA256: hex.EncodeToString(sum[:])})
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.dir, fileName+".tmp-*")
	if err != nil {
		return fmt.Errorf("lastgood: save: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing is there
	for _, b := range [][]byte{h, {'\n'}, data} {
		if _, err := tmp.Write(b); err != nil {
			tmp.Close()
			return fmt.Errorf("lastgood: save: %w", err)
		}
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("lastgood: save: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("lastgood: save: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.Path()); err != nil {
		return fmt.Errorf("lastgood: save: %w", err)
	}
	// The rename is durable once the folder is.
	d, err := os.Open(s.dir)
	if err != nil {
		return fmt.Errorf("lastgood: save: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("lastgood: save: sync %s: %w", s.dir, err)
	}
	return nil
}

// Load reads and checks the copy. Errors: ErrNoCopy, ErrCorrupt,
// ErrOtherPool (each wrapped with the path and what was found), or the
// file system's.
func (s *Store) Load() (Copy, error) {
	path := s.Path()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Copy{}, fmt.Errorf("lastgood: %s: %w", path, ErrNoCopy)
	}
	if err != nil {
		return Copy{}, fmt.Errorf("lastgood: %w", err)
	}
	line, data, ok := bytes.Cut(b, []byte{'\n'})
	var h header
	if !ok || json.Unmarshal(line, &h) != nil || h.Format != format {
		return Copy{}, fmt.Errorf("lastgood: %s: no %s header: %w", path, format, ErrCorrupt)
	}
	if h.Pool != s.pool {
		return Copy{}, fmt.Errorf("lastgood: %s: pool %q, want %q: %w", path, h.Pool, s.pool, ErrOtherPool)
	}
	if len(data) != h.Size {
		return Copy{}, fmt.Errorf("lastgood: %s: %d bytes of data, the header says %d: %w", path, len(data), h.Size, ErrCorrupt)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != h.SHA256 {
		return Copy{}, fmt.Errorf("lastgood: %s: the data's SHA-256 is not the header's: %w", path, ErrCorrupt)
	}
	return Copy{Data: data, ResourceVersion: h.ResourceVersion, Written: h.Written}, nil
}
