//go:build !linux

package e2e

import "errors"

// exchange needs renameat2, which only Linux has.
func exchange(string, string) error { return errors.ErrUnsupported }
