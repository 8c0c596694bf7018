package sdk

import "errors"

// ErrUnknownTool is returned by a Group asked to call a tool it does not have.
var ErrUnknownTool = errors.New("unknown tool")
