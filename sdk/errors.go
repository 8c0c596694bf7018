package sdk

import (
	"errors"
	"fmt"
)

// ErrUnknownTool is returned by a Group asked to call a tool it does not have.
var ErrUnknownTool = errors.New("unknown tool")

// UnknownTool is the error for a call to the tool called name that is not
// there: ErrUnknownTool, naming the tool, in the one wording every group
// uses. The host tells its callers more (UnknownToolError).
func UnknownTool(name string) error { return fmt.Errorf("%w %q", ErrUnknownTool, name) }

// UnknownToolError is the host's answer to a call of a tool the caller
// does not have, said to the client: the tool, and why it is absent (the
// flag that would mount it, or the nearest name the caller has). It
// matches ErrUnknownTool.
type UnknownToolError struct {
	Tool string
	// Why is the reason in words; empty when there is none to give.
	Why string
}

func (e *UnknownToolError) Error() string {
	if e.Why == "" {
		return "Unknown tool: " + e.Tool
	}
	return fmt.Sprintf("Unknown tool: %s (%s)", e.Tool, e.Why)
}

func (e *UnknownToolError) Unwrap() error { return ErrUnknownTool }
