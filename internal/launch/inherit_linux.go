package launch

import (
	"math"

	"golang.org/x/sys/unix"
)

// closeRangeCloexec is close_range's CLOSE_RANGE_CLOEXEC flag (Linux
// 5.11), which x/sys does not name.
const closeRangeCloexec = 1 << 2

// closeRangeOnExec marks every descriptor from 3 up close-on-exec in one
// system call, and reports whether the kernel could.
func closeRangeOnExec() bool {
	return unix.CloseRange(3, math.MaxUint32, closeRangeCloexec) == nil
}
