// Package cfgfile writes the files the server keeps in its config dir
// (kept descriptions, pins, tokens): whole or not at all, and readable by
// the user alone.
package cfgfile

import (
	"os"
	"path/filepath"
)

// Replace writes data to dir/name in place of what was there: to a
// temporary file in dir (mode 0600) renamed over it, so that a reader
// never sees half of it and a failed write leaves the old file. dir is
// made, mode 0700, when missing.
func Replace(dir, name string, data []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}
