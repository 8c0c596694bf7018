// Package pluginclient is the host side of the plugin contract: an
// sdk.Group backed by a plugin's gRPC connection, whatever language the
// plugin is written in, and the conversions from the generated types that
// this side needs. gRPC status codes are read here and nowhere else on the
// host side.
package pluginclient

import (
	"context"
	"errors"
	"fmt"
	"io"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pluginv1 "github.com/ramabana/ramabana-mcp/internal/gen/ramabana/plugin/v1"
	"github.com/ramabana/ramabana-mcp/internal/pluginrpc"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// ErrNoResult is returned when a plugin ends a call's stream without a result.
var ErrNoResult = errors.New("plugin ended the call without a result")

// Client is an sdk.Group backed by a plugin's ToolGroupService. It is safe
// for concurrent use.
type Client struct {
	client pluginv1.ToolGroupServiceClient
	opts   []grpc.CallOption
}

var _ sdk.Group = (*Client)(nil)

// New wraps a ToolGroupService client (what dispensing a plugin gives).
func New(c pluginv1.ToolGroupServiceClient) *Client {
	return &Client{client: c, opts: pluginrpc.CallOptions()}
}

// Dial wraps a connection to a ToolGroupService.
func Dial(conn grpc.ClientConnInterface) *Client {
	return New(pluginv1.NewToolGroupServiceClient(conn))
}

// Describe asks the plugin for its groups.
func (c *Client) Describe(ctx context.Context, host sdk.Host) (*sdk.Description, error) {
	ctx = pluginrpc.InjectTrace(ctx)
	resp, err := c.client.Describe(ctx, &pluginv1.DescribeRequest{Host: hostToProto(host)}, c.opts...)
	if err != nil {
		return nil, fromStatus(err)
	}
	return descriptionFromProto(resp), nil
}

// Call runs a tool in the plugin, forwarding its events until the result.
// The trace context of ctx, when it has a span, goes with the call
// (pluginrpc.InjectTrace): the plugin's spans join the trace.
func (c *Client) Call(ctx context.Context, call *sdk.Call, events sdk.Events) (*sdk.Result, error) {
	if events == nil {
		events = sdk.NoEvents
	}
	ctx, cancel := context.WithCancel(pluginrpc.InjectTrace(ctx))
	defer cancel() // ends the stream on every return
	stream, err := c.client.Call(ctx, &pluginv1.CallRequest{
		Tool: call.Tool, Arguments: call.Arguments, CallId: call.ID,
	}, c.opts...)
	if err != nil {
		// The generated stub fails only before the request is on its way:
		// opening the stream, or encoding the request (a failed send of a
		// server-streaming call's one message is reported by Recv).
		return nil, fmt.Errorf("%w: %w", ErrNotDelivered, fromStatus(err))
	}
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil, ErrNoResult
		}
		if status.Code(err) == codes.NotFound {
			return nil, sdk.UnknownTool(call.Tool) // the plugin has no such tool: the host's own wording
		}
		if err != nil {
			return nil, fromStatus(err)
		}
		switch ev := msg.GetEvent().(type) {
		case *pluginv1.CallResponse_Progress:
			events.Progress(ev.Progress.GetProgress(), ev.Progress.GetTotal(), ev.Progress.GetMessage())
		case *pluginv1.CallResponse_Log:
			events.Log(levelFromProto[ev.Log.GetLevel()], ev.Log.GetMessage())
		case *pluginv1.CallResponse_Result:
			return resultFromProto(ev.Result), nil
		}
	}
}

// ErrNotDelivered wraps the error of a call that never reached the
// plugin: the stream to it could not be opened (a dead plugin's, most
// often) or the request could not be sent. Such a call may be made again;
// any other failure may come after the plugin started the call.
var ErrNotDelivered = errors.New("call not delivered to the plugin")

// ErrUnavailable wraps failures to reach the plugin: it died or closed the
// connection.
var ErrUnavailable = errors.New("plugin unavailable")

// fromStatus turns a gRPC status into a Go error: the one place codes are
// read on the host side.
func fromStatus(err error) error {
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	switch st.Code() {
	case codes.NotFound:
		return fmt.Errorf("%w: %s", sdk.ErrUnknownTool, st.Message())
	case codes.Canceled:
		return context.Canceled
	case codes.DeadlineExceeded:
		return context.DeadlineExceeded
	case codes.Unavailable:
		return fmt.Errorf("%w: %s", ErrUnavailable, st.Message())
	default:
		return errors.New(st.Message())
	}
}
