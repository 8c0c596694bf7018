// Package sample is a fixture for outline and find_symbol.
package sample

import "context"

// MaxItems bounds a queue.
const MaxItems = 10

const (
	ModeA Mode = iota
	ModeB
)

var defaultName, otherName = "server", "other"

// Mode is an enum.
type Mode int

// Server serves.
type Server struct {
	Addr string
	// Port is the port.
	Port    int
	handler func(ctx context.Context) error
	context.Context
}

// Runner runs.
type Runner interface {
	Run(ctx context.Context) error
	Stop()
}

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

// NewServer makes a server.
func NewServer(addr string,
	port int) *Server {
	return &Server{Addr: addr, Port: port}
}

// Run runs the server.
func (s *Server) Run(ctx context.Context) error {
	return nil
}

func (p Pair[K, V]) Swap() Pair[K, V] { return p }

func Map[T any](xs []T, f func(T) T) []T {
	for i := range xs {
		xs[i] = f(xs[i])
	}
	return xs
}
