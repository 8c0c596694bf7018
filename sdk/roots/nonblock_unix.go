//go:build unix

package roots

import "syscall"

// nonblock keeps an open of a FIFO from blocking.
const nonblock = syscall.O_NONBLOCK
