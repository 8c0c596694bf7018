// Package pluginrpc is the wire half of the plugin contract that the host
// and a plugin share: the go-plugin handshake, the app protocol version,
// the plugin set, the gRPC limits and windows, and the per-launch call
// token. It knows only the generated service types; the plain Go types and
// the adapters that convert to them live with each side: the plugin side in
// package sdk (sdk.Serve), the host side in package pluginclient.
//
// Only the host and sdk.Serve import it: a plugin author never needs it.
package pluginrpc
