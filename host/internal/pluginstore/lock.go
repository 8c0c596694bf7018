package pluginstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// lockExclusive creates the store dir if needed and holds an exclusive
// flock on its mutex file until the returned func is called.
func (s *Store) lockExclusive() (func(), error) {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, fmt.Errorf("make plugin dir: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(s.dir, mutexFileName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock plugin dir: %w", err)
	}
	return flock(f, true)
}

// lockShared holds a shared flock on the mutex file, so that a reader waits
// out a change in progress. Without a mutex file no change was ever made
// (or the dir is read-only to us): there is nothing to wait for, and
// nothing is created.
func (s *Store) lockShared() (func(), error) {
	f, err := os.Open(filepath.Join(s.dir, mutexFileName))
	if errors.Is(err, os.ErrNotExist) {
		return func() {}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lock plugin dir: %w", err)
	}
	return flock(f, false)
}
