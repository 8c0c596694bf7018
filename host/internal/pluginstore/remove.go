package pluginstore

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrNotInstalled is wrapped by Remove's error for a name with no lock
// entry.
var ErrNotInstalled = errors.New("not installed")

// Remove uninstalls the plugin called name: its lock entry is dropped
// first, then its binary, so an interrupted remove leaves at worst a binary
// with no entry (served as if dropped in by hand), never an entry that
// vouches for nothing. A name with no entry is an error wrapping
// ErrNotInstalled that lists the installed names; a file of that name
// dropped in by hand is left alone.
func (s *Store) Remove(name string) error {
	unlock, err := s.lockExclusive()
	if err != nil {
		return err
	}
	defer unlock()
	lock, err := s.readLock()
	if err != nil {
		return err
	}
	if _, ok := lock.Plugins[name]; !ok {
		installed := "none are"
		if names := lock.Names(); len(names) > 0 {
			installed = "installed: " + strings.Join(names, ", ")
		}
		if _, err := os.Stat(s.Path(name)); err == nil {
			return fmt.Errorf("remove %q: %w by plugin install in %s (%s); %s has no lock entry, so delete it yourself", name, ErrNotInstalled, s.dir, installed, s.Path(name))
		}
		return fmt.Errorf("remove %q: %w in %s (%s)", name, ErrNotInstalled, s.dir, installed)
	}
	delete(lock.Plugins, name)
	if err := s.writeLock(lock); err != nil {
		return err
	}
	if err := os.Remove(s.Path(name)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove %q: entry removed, but not its binary: %w", name, err)
	}
	return syncDir(s.Path(name))
}
