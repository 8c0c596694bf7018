package atomicfile

import (
	"context"
	"errors"
	"io/fs"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// Failure is the tool error for an Update of the file shown as display that
// failed, leaving it unchanged; reread is what the model should do before
// it retries after a concurrent change ("read it again"). A tool error is
// returned as is, and so is the error of a call whose context ended, for
// the host to report the cancellation. For an UpdateAll, display shows
// the files; an error matching ErrPartial, which left some changed, says
// which.
func Failure(err error, display, reread string) error {
	var te *sdk.ToolError
	switch {
	case errors.As(err, &te), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, ErrPartial):
		return sdk.Failf("cannot write %s: %v", display, err)
	case errors.Is(err, ErrLocked):
		return sdk.Failf("%s is locked by another program; try again later (nothing was written)", display)
	case errors.Is(err, fs.ErrNotExist):
		return sdk.Failf("%s does not exist", display)
	case errors.Is(err, ErrChanged):
		return sdk.Failf("%s was changed by another program while this edit was made, so nothing was written (no change is lost): %s and retry", display, reread)
	case errors.Is(err, ErrSymlink):
		return sdk.Failf("%s was replaced by a symlink since its path was checked; nothing was written", display)
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		err = pe.Err // the absolute path it repeats is not for the model
	}
	return sdk.Failf("cannot write %s: %v; it is unchanged", display, err)
}
