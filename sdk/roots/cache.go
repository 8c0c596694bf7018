package roots

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// maxCached bounds a Cache; host contexts rarely change.
const maxCached = 8

// Cache holds the Roots of the host contexts a plugin has seen. Its zero
// value is ready to use; it is safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	roots map[string]*Roots
}

// For returns the Roots of a host context (its Roots and ReadOutside),
// built once per distinct context. The error is New's: a served folder
// that cannot be resolved, a host fault.
func (c *Cache) For(host sdk.Host) (*Roots, error) {
	key := fmt.Sprintf("%t\x00%s", host.ReadOutside, strings.Join(host.Roots, "\x00"))
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.roots[key]; ok {
		return r, nil
	}
	r, err := New(host.Roots, host.ReadOutside)
	if err != nil {
		return nil, err
	}
	if c.roots == nil || len(c.roots) >= maxCached {
		c.roots = map[string]*Roots{}
	}
	c.roots[key] = r
	return r, nil
}

// Handler is a tool's body: arguments decoded, the served folders of the
// call's host context resolved.
type Handler[In any] func(ctx context.Context, r *Roots, args In) (*sdk.Result, error)

// TypedTool declares a typed tool (see sdk.TypedTool) whose handler gets
// the Roots of the call's host context from c. A served folder that cannot
// be resolved is a fault, and so is any error fn returns other than an
// sdk.Failf failure; faults are prefixed with the tool's name.
func TypedTool[In any](c *Cache, spec sdk.ToolSpec, fn Handler[In]) sdk.Tool {
	return HostTool(c, spec, func(ctx context.Context, r *Roots, _ sdk.Host, args In) (*sdk.Result, error) {
		return fn(ctx, r, args)
	})
}

// HostHandler is a Handler that also gets the call's host context: for a
// tool whose behaviour depends on what the user allowed (Host.Commands).
type HostHandler[In any] func(ctx context.Context, r *Roots, host sdk.Host, args In) (*sdk.Result, error)

// HostTool is TypedTool for a handler that needs the host context beside
// the roots.
func HostTool[In any](c *Cache, spec sdk.ToolSpec, fn HostHandler[In]) sdk.Tool {
	return sdk.TypedTool(spec, func(ctx context.Context, req *sdk.Request, args In) (*sdk.Result, error) {
		r, err := c.For(req.Host)
		if err != nil {
			return nil, fmt.Errorf("%s: served folders: %w", spec.Name, err)
		}
		res, err := fn(ctx, r, req.Host, args)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec.Name, err)
		}
		return res, nil
	})
}
