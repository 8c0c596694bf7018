// Package atomicfile replaces files so that a reader sees the old content
// or the new, never a mix.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// KeptMode is the part of a file's mode a rewrite keeps.
func KeptMode(m fs.FileMode) fs.FileMode {
	return m & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}

// Write replaces path with data: it writes a temporary file in the
// same directory, syncs it, sets mode and renames it over path, so a reader
// sees the old content or the new, never a mix. On any error the temporary
// file is removed and path is untouched. A rename gives the file a new
// inode: hard links to the old one keep the old content.
func Write(path string, data []byte, mode fs.FileMode) (err error) {
	dir, name := filepath.Split(path)
	f, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	closed := false
	defer func() {
		if err != nil {
			if !closed {
				_ = f.Close()
			}
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	closed = true
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	// Make the rename durable; a failure here leaves a correct file.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
