package pluginrpc

import "google.golang.org/grpc"

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
// message limits and the fixed windows of NewServer.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithDefaultCallOptions(CallOptions()...),
		grpc.WithInitialWindowSize(windowSize),
		grpc.WithInitialConnWindowSize(connWindowSize),
	}
}

// CallOptions are the per-call options of the host's calls: the raised
// message limits, for connections not dialled with DialOptions.
func CallOptions() []grpc.CallOption {
	return []grpc.CallOption{grpc.MaxCallRecvMsgSize(MaxMessageSize), grpc.MaxCallSendMsgSize(MaxMessageSize)}
}

// NewServer builds a plugin's gRPC server with the raised message limits of
// the contract and fixed flow-control windows, plus opts. Fixed windows
// turn off grpc's bandwidth-delay probing, whose PING frames on every read
// cost more than the call itself on a local socket (about 40% of a trivial
// call).
func NewServer(opts ...grpc.ServerOption) *grpc.Server {
	opts = append(opts,
		grpc.MaxRecvMsgSize(MaxMessageSize), grpc.MaxSendMsgSize(MaxMessageSize),
		grpc.InitialWindowSize(windowSize), grpc.InitialConnWindowSize(connWindowSize))
	return grpc.NewServer(opts...)
}
