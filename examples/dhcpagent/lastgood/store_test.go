package lastgood

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var written = time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)

const poolJSON = `{"metadata":{"name":"lab","namespace":"default","resourceVersion":"42"},"spec":{"cidr":"10.77.0.0/24"}}`

// TestLoad: what Load makes of each file a crash, a disk or a person can
// leave: the copy Save wrote comes back whole; anything torn, tampered
// with or of another pool is refused with the error that says so.
func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		damage  func(t *testing.T, path string) // after Save; nil: none
		pool    string                          // the loading store's; "": default/lab
		want    Copy
		wantErr error
	}{
		{name: "the copy Save wrote", want: Copy{Data: []byte(poolJSON), ResourceVersion: "42", Written: written}},
		{name: "no copy", damage: func(t *testing.T, path string) { remove(t, path) }, wantErr: ErrNoCopy},
		{name: "torn: the last 10 bytes missing", damage: func(t *testing.T, path string) { edit(t, path, func(b []byte) []byte { return b[:len(b)-10] }) }, wantErr: ErrCorrupt},
		{name: "torn: only the header", damage: func(t *testing.T, path string) {
			edit(t, path, func(b []byte) []byte { return b[:bytes.IndexByte(b, '\n')+1] })
		}, wantErr: ErrCorrupt},
		{name: "torn: half the header", damage: func(t *testing.T, path string) { edit(t, path, func(b []byte) []byte { return b[:20] }) }, wantErr: ErrCorrupt},
		{name: "empty file", damage: func(t *testing.T, path string) { edit(t, path, func([]byte) []byte { return nil }) }, wantErr: ErrCorrupt},
		{name: "data appended", damage: func(t *testing.T, path string) { edit(t, path, func(b []byte) []byte { return append(b, ' ') }) }, wantErr: ErrCorrupt},
		{name: "tampered: an address changed", damage: func(t *testing.T, path string) {
			edit(t, path, func(b []byte) []byte { return bytes.Replace(b, []byte("10.77.0.0"), []byte("10.77.9.0"), 1) })
		}, wantErr: ErrCorrupt},
		{name: "tampered: the data's resourceVersion changed", damage: func(t *testing.T, path string) {
			edit(t, path, func(b []byte) []byte {
				return bytes.Replace(b, []byte(`"resourceVersion":"42"},`), []byte(`"resourceVersion":"43"},`), 1)
			})
		}, wantErr: ErrCorrupt},
		{name: "another format", damage: func(t *testing.T, path string) {
			edit(t, path, func(b []byte) []byte {
				return bytes.Replace(b, []byte(format), []byte("vmnetkit-dhcpagent-last-good/v0"), 1)
			})
		}, wantErr: ErrCorrupt},
		{name: "a pool file, not a copy", damage: func(t *testing.T, path string) { edit(t, path, func([]byte) []byte { return []byte(poolJSON + "\n") }) }, wantErr: ErrCorrupt},
		{name: "another pool's copy", pool: "default/other", wantErr: ErrOtherPool},
		{name: "a temporary file left by a crash beside it", damage: func(t *testing.T, path string) {
			if err := os.WriteFile(path+".tmp-123", []byte("half a wr"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, want: Copy{Data: []byte(poolJSON), ResourceVersion: "42", Written: written}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := New(dir, "default/lab").Save([]byte(poolJSON), "42", written); err != nil {
				t.Fatal(err)
			}
			if tt.damage != nil {
				tt.damage(t, filepath.Join(dir, fileName))
			}
			pool := tt.pool
			if pool == "" {
				pool = "default/lab"
			}
			got, err := New(dir, pool).Load()
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Load error %v, want %v", err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), filepath.Join(dir, fileName)) {
				t.Errorf("error %q does not name the file", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Load (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSave: a Save replaces the copy whole and leaves no temporary file;
// one into a folder that does not exist fails and writes nothing.
func TestSave(t *testing.T) {
	dir := t.TempDir()
	s := New(dir, "default/lab")
	for i, rv := range []string{"1", "2"} {
		data := []byte(fmt.Sprintf(`{"version":%d}`, i))
		if err := s.Save(data, rv, written.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
		got, err := s.Load()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(Copy{Data: data, ResourceVersion: rv, Written: written.Add(time.Duration(i) * time.Minute)}, got); diff != "" {
			t.Errorf("after save %d (-want +got):\n%s", i, diff)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != fileName {
		t.Errorf("folder holds %v, want only %s", entries, fileName)
	}
	missing := New(filepath.Join(dir, "none"), "default/lab")
	if err := missing.Save([]byte("{}"), "1", written); err == nil {
		t.Error("Save into a missing folder succeeded")
	}
	if _, err := missing.Load(); !errors.Is(err, ErrNoCopy) {
		t.Errorf("Load after a failed Save: %v, want ErrNoCopy", err)
	}
}

// FuzzLoad: whatever the file holds, Load does not panic, and what it
// accepts is exactly what a Save of its data writes.
func FuzzLoad(f *testing.F) {
	dir := f.TempDir()
	s := New(dir, "default/lab")
	if err := s.Save([]byte(poolJSON), "42", written); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(s.Path())
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][]byte{good, good[:len(good)/2], nil, []byte("{}\n{}"), []byte(poolJSON)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		s := New(dir, "default/lab")
		if err := os.WriteFile(s.Path(), b, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := s.Load()
		if err != nil {
			return
		}
		again := New(t.TempDir(), "default/lab")
		if err := again.Save(c.Data, c.ResourceVersion, c.Written); err != nil {
			t.Fatal(err)
		}
		back, err := again.Load()
		if err != nil || !bytes.Equal(back.Data, c.Data) {
			t.Fatalf("a copy Load accepted does not round-trip: %v", err)
		}
	})
}

func remove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

func edit(t *testing.T, path string, fn func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, fn(b), 0o600); err != nil {
		t.Fatal(err)
	}
}
