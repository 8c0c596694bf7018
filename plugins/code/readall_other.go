//go:build !unix

package code

import (
	"errors"
	"io"
	"os"
)

// readAll appends the file's content to buf, growing it, and fails with
// errTooLarge past limit bytes.
func readAll(path string, buf []byte, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	for {
		if len(buf) == cap(buf) {
			if len(buf) > limit {
				return buf, errTooLarge
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return buf, err
		}
	}
	if len(buf) > limit {
		return buf, errTooLarge
	}
	return buf, nil
}
