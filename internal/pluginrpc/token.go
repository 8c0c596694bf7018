package pluginrpc

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// TokenEnv names the variable through which the host gives each plugin
// it launches a fresh secret, which every RPC of the host then carries. A
// plugin's socket is reachable by any program of the same user, a shell
// command included; without the token such a program could describe the
// plugin with a host context of its own (other roots, write, commands) or
// call its tools. sdk.Serve reads the variable and removes it from the
// environment before anything else runs, so the plugin's own children never
// see it; a plugin started without it (by an older host) checks nothing.
const TokenEnv = "RAMABANA_PLUGIN_TOKEN"

// callTokenKey is the gRPC metadata key that carries the token.
const callTokenKey = "ramabana-plugin-token"

// NewToken returns a fresh random token for one plugin launch.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("plugin call token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// TokenDialOption makes every RPC on a connection carry token.
func TokenDialOption(token string) grpc.DialOption {
	return grpc.WithPerRPCCredentials(callToken(token))
}

type callToken string

func (t callToken) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{callTokenKey: string(t)}, nil
}

// RequireTransportSecurity is false: plugins are reached over a unix
// socket, and the token, not the transport, proves who calls.
func (callToken) RequireTransportSecurity() bool { return false }

// RequireToken returns server options that refuse, with
// Unauthenticated, every RPC (go-plugin's own services included) that does
// not carry token.
func RequireToken(token string) []grpc.ServerOption {
	check := func(ctx context.Context) error {
		md, _ := metadata.FromIncomingContext(ctx)
		for _, got := range md.Get(callTokenKey) {
			if subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1 {
				return nil
			}
		}
		return status.Error(codes.Unauthenticated, "this plugin answers only the host that launched it")
	}
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
			if err := check(ctx); err != nil {
				return nil, err
			}
			return next(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, next grpc.StreamHandler) error {
			if err := check(ss.Context()); err != nil {
				return err
			}
			return next(srv, ss)
		}),
	}
}
