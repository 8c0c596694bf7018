package sdk

import (
	"context"
	"encoding/json"
)

// Group is the plugin contract in plain Go: a plugin implements it and
// serves it with [Serve]; the host calls a plugin process, whatever its
// language, through the same interface.
//
// Describe is called once per launch, before any Call. Call may be called
// concurrently for different calls; it streams progress and logs through
// events and returns the result. Cancelling ctx cancels the call.
type Group interface {
	Describe(ctx context.Context, host Host) (*Description, error)
	Call(ctx context.Context, call *Call, events Events) (*Result, error)
}

// Call is one tool call.
type Call struct {
	Tool string
	// Arguments is a JSON object, already validated by the host against the
	// tool's input schema.
	Arguments json.RawMessage
	// ID identifies the call in logs; may be empty.
	ID string
}

// Events receives what a call streams before its result. Implementations
// are safe for concurrent use.
type Events interface {
	Progress(progress, total float64, message string)
	Log(level LogLevel, message string)
}

// NoEvents discards every event.
var NoEvents Events = noEvents{}

type noEvents struct{}

func (noEvents) Progress(float64, float64, string) {}
func (noEvents) Log(LogLevel, string)              {}
