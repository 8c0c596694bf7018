package pluginrpc

import (
	"context"
	"errors"

	plugin "github.com/ramabana/ramabana-mcp/internal/goplugin"
	"google.golang.org/grpc"

	pluginv1 "github.com/ramabana/ramabana-mcp/internal/gen/ramabana/plugin/v1"
)

// ProtocolVersion is the app protocol version of this contract. A host
// negotiates it through go-plugin's VersionedPlugins, so a v2 can come
// without breaking v1 plugins.
const ProtocolVersion = 1

// PluginName is the go-plugin plugin set key a ramabana plugin serves.
const PluginName = "toolgroup"

// Handshake is shared by the host and every plugin. The cookie is not a
// security measure: it stops a user from running a plugin by hand. It is a
// function so that no caller can change what every other caller sees.
func Handshake() plugin.HandshakeConfig {
	return plugin.HandshakeConfig{
		ProtocolVersion:  ProtocolVersion,
		MagicCookieKey:   "RAMABANA_PLUGIN_MAGIC_COOKIE",
		MagicCookieValue: "c2f6e5b4a1d94e0f9c7b3a8d6e2f1c0a",
	}
}

// PluginSets returns the go-plugin plugin sets by protocol version. service
// is what a plugin serves; the host passes nil, and dispensing gives it a
// pluginv1.ToolGroupServiceClient.
func PluginSets(service pluginv1.ToolGroupServiceServer) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{
		ProtocolVersion: {PluginName: &grpcPlugin{service: service}},
	}
}

// grpcPlugin is the go-plugin adapter: it registers the server side and
// builds the client side.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	service pluginv1.ToolGroupServiceServer
}

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	if p.service == nil {
		return errors.New("no tool group service to serve")
	}
	pluginv1.RegisterToolGroupServiceServer(s, p.service)
	return nil
}

func (p *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return pluginv1.NewToolGroupServiceClient(c), nil
}
