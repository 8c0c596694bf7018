package sdk

import (
	"errors"
	"fmt"
)

// ToolError is a failure the model can act on, as opposed to a fault: a
// handler returns sdk.Failf for failures the model can act on, and
// TypedTool and Toolbox.Call turn it, wrapped or not, into an error result
// with Msg as its text. Any other error a handler returns is a fault.
type ToolError struct{ Msg string }

func (e *ToolError) Error() string { return e.Msg }

var _ error = (*ToolError)(nil)

// Failf returns a *ToolError with the formatted message: how a handler
// reports a failure the model can act on ("line 12 changed since you read
// it"), whatever its output type.
func Failf(format string, args ...any) error {
	return &ToolError{Msg: fmt.Sprintf(format, args...)}
}

// failure turns an error that is or wraps a *ToolError into its error
// result, and passes res and any other error through.
func failure(res *Result, err error) (*Result, error) {
	if te := (*ToolError)(nil); errors.As(err, &te) {
		return errorResult(te.Msg), nil
	}
	return res, err
}

// errorResult is the result a failure becomes: IsError, and msg as its
// one text block.
func errorResult(msg string) *Result {
	return &Result{Content: []Content{{Text: msg}}, IsError: true}
}
