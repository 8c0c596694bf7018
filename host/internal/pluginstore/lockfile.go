package pluginstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/ramabana/ramabana-mcp/internal/schema"
)

// lockVersion is the lock file format this package reads and writes.
const lockVersion = 1

// LockFile is the lock file's content.
type LockFile struct {
	Version int `json:"version"`
	// Plugins by name. Never nil in a LockFile this package returns.
	Plugins map[string]Entry `json:"plugins"`
}

// Entry records one installed plugin.
type Entry struct {
	// Name is the plugin's name, the key in LockFile.Plugins (not stored
	// in the entry itself).
	Name string `json:"-"`
	// File is the binary's file name in the store dir:
	// ramabana-plugin-<name>.
	File     string `json:"file"`
	Version  string `json:"version"`
	Protocol int    `json:"protocol"`
	// SHA256 is the binary's hash, lower-case hex.
	SHA256      string    `json:"sha256"`
	InstalledAt time.Time `json:"installed_at"`
	// Source is the absolute path it was installed from.
	Source string `json:"source"`

	// Replaced is the entry this install replaced, nil for a new name. It is
	// set only in the Entry that Install returns.
	Replaced *Entry `json:"-"`
}

// Names are the installed plugins' names, sorted.
func (l *LockFile) Names() []string {
	names := make([]string, 0, len(l.Plugins))
	for n := range l.Plugins {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lock reads the lock file; a missing one is an empty LockFile. It waits
// for a change in progress to finish.
func (s *Store) Lock() (*LockFile, error) {
	unlock, err := s.lockShared()
	if err != nil {
		return nil, err
	}
	defer unlock()
	return s.readLock()
}

// readLock reads the lock file without taking the flock. An entry whose
// file is not ramabana-plugin-<its name> is refused: Remove deletes that
// file, so a hand-edited lock file must not point outside the dir.
func (s *Store) readLock() (*LockFile, error) {
	b, err := os.ReadFile(s.lockPath())
	if errors.Is(err, os.ErrNotExist) {
		return &LockFile{Version: lockVersion, Plugins: map[string]Entry{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read lock file: %w", err)
	}
	var l LockFile
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("lock file %s: %w", s.lockPath(), err)
	}
	if l.Version != lockVersion {
		return nil, fmt.Errorf("lock file %s: version %d, this ramabana-mcp reads version %d", s.lockPath(), l.Version, lockVersion)
	}
	if l.Plugins == nil {
		l.Plugins = map[string]Entry{}
	}
	for name, e := range l.Plugins {
		if !schema.ValidName(name) || e.File != FilePrefix+name {
			return nil, fmt.Errorf("lock file %s: entry %q: file %q is not %s<name> for a name of lower-case letters, digits and '-'", s.lockPath(), name, e.File, FilePrefix)
		}
		e.Name = name
		l.Plugins[name] = e
	}
	return &l, nil
}

// writeLock replaces the lock file atomically. The caller holds the
// exclusive flock.
func (s *Store) writeLock(l *LockFile) error {
	l.Version = lockVersion
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return fmt.Errorf("encode lock file: %w", err)
	}
	b = append(b, '\n')
	f, err := os.CreateTemp(s.dir, "."+LockFileName+".tmp-*")
	if err != nil {
		return fmt.Errorf("write lock file: %w", err)
	}
	if err := finishTemp(f, b, 0o644, s.lockPath()); err != nil {
		return fmt.Errorf("write lock file: %w", err)
	}
	return nil
}

// finishTemp writes data (when not nil) to the temp file f, syncs it, sets
// its mode, renames it to dst and syncs the dir. On failure the temp file
// is removed.
func finishTemp(f *os.File, data []byte, mode os.FileMode, dst string) error {
	err := func() error {
		if data != nil {
			if _, err := f.Write(data); err != nil {
				return err
			}
		}
		if err := f.Chmod(mode); err != nil {
			return err
		}
		return f.Sync()
	}()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), dst)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return syncDir(dst)
}

func syncDir(file string) error {
	d, err := os.Open(filepath.Dir(file))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
