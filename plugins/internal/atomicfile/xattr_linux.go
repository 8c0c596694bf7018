package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// copyXattrs copies every extended attribute of from to to. A file system
// without them has none to copy. An attribute the process may not set
// (trusted.* and security.* ones need privileges) is left out, as cp -a
// does; every other failure is an error, so that user.* attributes are
// never silently dropped.
func copyXattrs(from, to *os.File) error {
	return control(from, func(src int) error {
		return control(to, func(dst int) error {
			names, err := listXattrs(src)
			if err != nil {
				if errors.Is(err, unix.ENOTSUP) {
					return nil
				}
				return fmt.Errorf("list extended attributes: %w", err)
			}
			for _, name := range names {
				val, err := getXattr(src, name)
				if errors.Is(err, unix.ENODATA) {
					continue // removed meanwhile
				}
				if err != nil {
					return fmt.Errorf("read extended attribute %s: %w", name, err)
				}
				if err := unix.Fsetxattr(dst, name, val, 0); err != nil {
					if errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOTSUP) {
						continue
					}
					return fmt.Errorf("keep extended attribute %s: %w", name, err)
				}
			}
			return nil
		})
	})
}

func listXattrs(fd int) ([]string, error) {
	for {
		n, err := unix.Flistxattr(fd, nil)
		if err != nil || n == 0 {
			return nil, err
		}
		buf := make([]byte, n)
		n, err = unix.Flistxattr(fd, buf)
		if errors.Is(err, unix.ERANGE) {
			continue // grew meanwhile
		}
		if err != nil {
			return nil, err
		}
		var names []string
		for _, b := range bytes.Split(buf[:n], []byte{0}) {
			if len(b) > 0 {
				names = append(names, string(b))
			}
		}
		return names, nil
	}
}

func getXattr(fd int, name string) ([]byte, error) {
	for {
		n, err := unix.Fgetxattr(fd, name, nil)
		if err != nil {
			return nil, err
		}
		buf := make([]byte, n)
		n, err = unix.Fgetxattr(fd, name, buf)
		if errors.Is(err, unix.ERANGE) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return buf[:n], nil
	}
}
