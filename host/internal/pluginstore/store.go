package pluginstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ramabana/ramabana-mcp/internal/schema"
)

// FilePrefix starts the file name of every plugin binary:
// ramabana-plugin-<name>, whether installed or dropped in by hand.
const FilePrefix = "ramabana-plugin-"

// LockFileName is the lock file's name inside the store dir.
const LockFileName = "ramabana-plugins.lock.json"

// mutexFileName is the file flocked around every change.
const mutexFileName = ".lock"

// PluginName returns the plugin name of a file name (or path) of the form
// ramabana-plugin-<name>, and false for any other file, including the
// store's temp files and lock files.
func PluginName(file string) (string, bool) {
	name, ok := strings.CutPrefix(filepath.Base(file), FilePrefix)
	if !ok || !schema.ValidName(name) {
		return "", false
	}
	return name, true
}

// DefaultDir is the user plugin dir inside the config dir cfg.
func DefaultDir(cfg string) string { return filepath.Join(cfg, "plugins") }

// Store is one plugin dir. Its methods are safe for concurrent use, in one
// process or several.
type Store struct {
	dir string // absolute, cleaned
}

// Open returns the store in dir. The dir need not exist yet: it is made by
// the first Install, and reads of a missing dir find nothing installed.
// Open writes nothing.
func Open(dir string) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("plugin dir %q: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("plugin dir: %w", err)
	case !fi.IsDir():
		return nil, fmt.Errorf("plugin dir %q is not a directory", abs)
	}
	return &Store{dir: abs}, nil
}

// Dir is the store's absolute dir.
func (s *Store) Dir() string { return s.dir }

// Path is where the plugin called name is (or would be) installed.
func (s *Store) Path(name string) string { return filepath.Join(s.dir, FilePrefix+name) }

func (s *Store) lockPath() string { return filepath.Join(s.dir, LockFileName) }

// contains reports whether path names a file directly inside the store dir,
// comparing with symlinks resolved when the dirs exist.
func (s *Store) contains(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	dir := filepath.Dir(abs)
	if dir == s.dir {
		return true
	}
	a, errA := filepath.EvalSymlinks(dir)
	b, errB := filepath.EvalSymlinks(s.dir)
	return errA == nil && errB == nil && a == b
}
