package sdk

import (
	"errors"
	"fmt"
)

// ErrUnknownTool is returned by a Group asked to call a tool it does not have.
var ErrUnknownTool = errors.New("unknown tool")

// UnknownTool is the error for a call to the tool called name that is not
// there: ErrUnknownTool, naming the tool, in the one wording the host and
// every group use.
func UnknownTool(name string) error { return fmt.Errorf("%w %q", ErrUnknownTool, name) }
