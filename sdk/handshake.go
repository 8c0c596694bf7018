package sdk

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pluginv1 "github.com/ramabana/ramabana-mcp/gen/ramabana/plugin/v1"
)

// ProtocolVersion is the app protocol version of this contract. A host
// negotiates it through go-plugin's VersionedPlugins, so a v2 can come
// without breaking v1 plugins.
const ProtocolVersion = 1

// PluginName is the go-plugin plugin set key a ramabana plugin serves.
const PluginName = "toolgroup"

// MaxMessageSize is the gRPC message limit both sides accept (grpc's
// default of 4 MiB is too small for a whole file or a page of output).
const MaxMessageSize = 256 << 20

// Flow-control windows of both sides: large enough that a whole page of
// output is in flight at once on a local socket.
const (
	windowSize     = 4 << 20
	connWindowSize = 8 << 20
)

// DialOptions are the gRPC options a host dials a plugin with: the raised
// message limits and the fixed windows of NewGRPCServer.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageSize), grpc.MaxCallSendMsgSize(MaxMessageSize)),
		grpc.WithInitialWindowSize(windowSize),
		grpc.WithInitialConnWindowSize(connWindowSize),
	}
}

// Handshake is shared by the host and every plugin. The cookie is not a
// security measure: it stops a user from running a plugin by hand.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "RAMABANA_PLUGIN_MAGIC_COOKIE",
	MagicCookieValue: "c2f6e5b4a1d94e0f9c7b3a8d6e2f1c0a",
}

// PluginSets returns the go-plugin plugin sets by protocol version. impl is
// the served group on the plugin side and nil on the host side.
func PluginSets(impl Group) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{
		ProtocolVersion: {PluginName: &grpcPlugin{impl: impl}},
	}
}

// grpcPlugin is the go-plugin adapter: it registers the server side and
// builds the client side.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	impl Group
}

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	return Register(s, p.impl)
}

func (p *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return NewGRPCClient(c), nil
}

// Register registers g's ToolGroupService on s, for serving a group on a
// gRPC server of one's own (tests, in-process hosts).
func Register(s *grpc.Server, g Group) error {
	pluginv1.RegisterToolGroupServiceServer(s, &grpcServer{impl: g})
	return nil
}
