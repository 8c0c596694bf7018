package code

import (
	"errors"
	"io"

	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// readAll appends the content of the regular file t to buf, growing it,
// and fails with errTooLarge past limit bytes. The file is opened through
// its served folder's root, never by absolute name.
func readAll(t *roots.Target, buf []byte, limit int) ([]byte, error) {
	f, err := t.Open()
	if err != nil {
		return buf, err
	}
	defer f.Close()
	switch fi, err := f.Stat(); {
	case err != nil:
		return buf, err
	case !fi.Mode().IsRegular():
		return buf, errors.New("not a regular file")
	case fi.Size() > int64(limit):
		return buf, errTooLarge // without reading it; it is checked again as read
	}
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
