package sdk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pluginv1 "github.com/ramabana/ramabana-mcp/internal/gen/ramabana/plugin/v1"
	"github.com/ramabana/ramabana-mcp/internal/pluginrpc"
)

// Service is the gRPC service Serve serves g with, the plugin side of the
// contract, for whoever serves a group in-process instead of as a plugin
// process: sdktest, and tests of the plugin RPC halves. A plugin calls
// Serve.
func Service(g Group) pluginv1.ToolGroupServiceServer { return &service{impl: g} }

// service serves a Group as the ToolGroupService. It is the plugin-side
// process edge: panics in Describe or a handler are recovered here and
// reported as errors, never crash the plugin.
type service struct {
	pluginv1.UnimplementedToolGroupServiceServer
	impl Group
}

func (s *service) Describe(ctx context.Context, req *pluginv1.DescribeRequest) (resp *pluginv1.DescribeResponse, err error) {
	defer recoverInto(&err, "describe")
	d, err := s.impl.Describe(pluginrpc.ExtractTrace(ctx), hostFromProto(req.GetHost()))
	if err != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "describe: %v", err)
	}
	return descriptionToProto(d), nil
}

func (s *service) Call(req *pluginv1.CallRequest, stream pluginv1.ToolGroupService_CallServer) (err error) {
	defer recoverInto(&err, "tool "+req.GetTool())
	ev := &streamEvents{stream: stream}
	defer ev.finish() // events sent after the call returns are dropped
	// The host's trace context becomes the handler's remote parent span:
	// a plugin that makes spans (with an OpenTelemetry SDK of its own)
	// joins the host's trace.
	res, err := s.impl.Call(pluginrpc.ExtractTrace(stream.Context()), &Call{Tool: req.GetTool(), Arguments: req.GetArguments(), ID: req.GetCallId()}, ev)
	switch {
	case errors.Is(err, ErrUnknownTool):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	case err != nil:
		return status.Error(codes.Unknown, err.Error())
	}
	if res == nil {
		res = &Result{}
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	ev.done = true
	return stream.Send(&pluginv1.CallResponse{Event: &pluginv1.CallResponse_Result{Result: resultToProto(res)}})
}

func (e *streamEvents) finish() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.done = true
}

func recoverInto(err *error, what string) {
	if r := recover(); r != nil {
		slog.Error("plugin panic", "in", what, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		*err = status.Errorf(codes.Internal, "%s panicked: %v", what, r)
	}
}

// streamEvents sends events on the call's stream. gRPC streams allow one
// sender at a time, so sends are serialised; events after the result are
// dropped.
type streamEvents struct {
	stream pluginv1.ToolGroupService_CallServer
	mu     sync.Mutex
	done   bool
}

func (e *streamEvents) send(r *pluginv1.CallResponse) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.done {
		_ = e.stream.Send(r) // a failed send means the host went away; the call's context says so
	}
}

func (e *streamEvents) Progress(progress, total float64, message string) {
	e.send(&pluginv1.CallResponse{Event: &pluginv1.CallResponse_Progress{Progress: &pluginv1.Progress{
		Progress: progress, Total: total, Message: message,
	}}})
}

func (e *streamEvents) Log(level LogLevel, message string) {
	e.send(&pluginv1.CallResponse{Event: &pluginv1.CallResponse_Log{Log: &pluginv1.Log{
		Level: levelToProto[level], Message: message,
	}}})
}
