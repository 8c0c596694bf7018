//go:build !unix

package proctest

import "errors"

// canLock says lockFile holds a lock other processes see: not here, so
// Build builds straight into the test's folder.
const canLock = false

func lockFile(string) (func(), error) { return nil, errors.New("no file locks on this system") }
