package pluginstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// ErrHashMismatch is wrapped by the error of Check for a binary that no
// longer hashes to its lock entry.
var ErrHashMismatch = errors.New("plugin binary does not match its lock entry")

// HashMismatchError says which binary was modified after install. It
// unwraps to ErrHashMismatch.
type HashMismatchError struct {
	Name, Path     string
	Actual, Locked string // sha256, hex
}

func (e *HashMismatchError) Error() string {
	return fmt.Sprintf("plugin %q (%s) was modified after install (sha256 %s, locked %s); reinstall it with ramabana-mcp plugin install",
		e.Name, e.Path, e.Actual, e.Locked)
}

func (e *HashMismatchError) Unwrap() error { return ErrHashMismatch }

// Check decides whether the binary at path may be launched. A
// ramabana-plugin-<name> file directly inside the store dir with a lock
// entry must hash (afresh) to the entry's sha256: otherwise the error wraps
// ErrHashMismatch and says how to fix it. Anything else is allowed and
// returns nil: a path outside the dir, and a file in the dir with no entry
// (dropped in by hand). A lock file that cannot be read is an error, since
// nothing can be vouched for. Check waits for an install or remove in
// progress to finish.
func (s *Store) Check(path string) error {
	name, ok := PluginName(path)
	if !ok || !s.contains(path) {
		return nil
	}
	unlock, err := s.lockShared()
	if err != nil {
		return err
	}
	defer unlock()
	lock, err := s.readLock()
	if err != nil {
		return fmt.Errorf("check plugin %q: %w", name, err)
	}
	e, ok := lock.Plugins[name]
	if !ok {
		return nil
	}
	sum, err := FileSHA256(path)
	if err != nil {
		return fmt.Errorf("check plugin %q: %w", name, err)
	}
	if sum != e.SHA256 {
		return &HashMismatchError{Name: name, Path: path, Actual: sum, Locked: e.SHA256}
	}
	return nil
}

// Status is the outcome of verifying one file.
type Status string

const (
	StatusOK       Status = "ok"       // the binary hashes to its entry
	StatusMismatch Status = "mismatch" // the binary was modified after install
	StatusMissing  Status = "missing"  // an entry whose binary is gone
	StatusUnlocked Status = "unlocked" // a binary with no entry, dropped in by hand (allowed)
	StatusError    Status = "error"    // the binary could not be read
)

// Check is the outcome of verifying one plugin.
type Check struct {
	Name   string
	Path   string
	Status Status
	// Locked is the entry's sha256 (empty when unlocked); Actual the
	// file's (empty when missing or unreadable).
	Locked, Actual string
	// Err says why the file could not be read, for StatusError.
	Err error
}

// Problem reports whether the check means the plugin would be refused or
// is gone: a mismatch, a missing binary or an unreadable one.
func (c Check) Problem() bool {
	return c.Status == StatusMismatch || c.Status == StatusMissing || c.Status == StatusError
}

// Verify checks every lock entry against its binary and lists every
// ramabana-plugin-* file that has no entry, sorted by name. A missing store
// dir verifies as empty.
func (s *Store) Verify() ([]Check, error) {
	unlock, err := s.lockShared()
	if err != nil {
		return nil, err
	}
	defer unlock()
	lock, err := s.readLock()
	if err != nil {
		return nil, err
	}
	var checks []Check
	for name, e := range lock.Plugins {
		c := Check{Name: name, Path: s.Path(name), Locked: e.SHA256}
		sum, err := FileSHA256(c.Path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			c.Status = StatusMissing
		case err != nil:
			c.Status, c.Err = StatusError, err
		case sum != e.SHA256:
			c.Status, c.Actual = StatusMismatch, sum
		default:
			c.Status, c.Actual = StatusOK, sum
		}
		checks = append(checks, c)
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read plugin dir: %w", err)
	}
	for _, de := range entries {
		name, ok := PluginName(de.Name())
		if _, locked := lock.Plugins[name]; !ok || locked {
			continue
		}
		c := Check{Name: name, Path: filepath.Join(s.dir, de.Name()), Status: StatusUnlocked}
		fi, err := os.Stat(c.Path) // follows links, as discovery does
		if err != nil || !fi.Mode().IsRegular() {
			continue // not something discovery would launch
		}
		if c.Actual, err = FileSHA256(c.Path); err != nil {
			c.Status, c.Err = StatusError, err
		}
		checks = append(checks, c)
	}
	sort.Slice(checks, func(i, j int) bool { return checks[i].Name < checks[j].Name })
	return checks, nil
}

// VerifyInstalled refuses a plugin binary whose hash no longer matches its
// entry in the lock file of the dir it sits in (a binary dropped in by
// hand, with no entry, may run): the launcher's Verify for the server and
// for `plugin list` alike.
func VerifyInstalled(path string) error {
	st, err := Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	return st.Check(path)
}
