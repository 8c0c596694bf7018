package gate

import (
	"context"
	"fmt"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Receiving is the gate on the server's answers, a receiving middleware
// of the go-sdk server to be added last (outermost): the result of every
// request the server answers, whatever its method, and its error leave
// filtered. What the client sent is not touched.
func (g *Gate) Receiving() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		if !g.On() {
			return next
		}
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if err != nil {
				return res, g.Error(err)
			}
			if res == nil || reflect.ValueOf(res).IsNil() {
				return res, nil
			}
			out, _ := filterValue(g.f, res)
			return out, nil
		}
	}
}

// Sending is the gate on what the server sends of its own accord, a
// sending middleware of the go-sdk server: the params of every
// notification (progress, logging, resource updates, list changes) and of
// every request to the client (sampling, elicitation, roots, ping) leave
// filtered. The client's answers to those requests are its own, not
// touched.
func (g *Gate) Sending() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		if !g.On() {
			return next
		}
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			out, err := g.request(req)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", method, err)
			}
			return next(ctx, method, out)
		}
	}
}

// request returns req with its params filtered: a copy of the request
// (an *mcp.ServerRequest[P]) that holds the filtered params, or req itself
// when they hold nothing to filter.
func (g *Gate) request(req mcp.Request) (mcp.Request, error) {
	if req == nil {
		return req, nil
	}
	params := req.GetParams()
	if params == nil || reflect.ValueOf(params).IsNil() {
		return req, nil
	}
	out, found := filterValue(g.f, params)
	if found == 0 {
		return req, nil
	}
	rv := reflect.ValueOf(req)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return nil, ErrUnfiltered
	}
	field := rv.Elem().FieldByName("Params")
	if !field.IsValid() || !reflect.TypeOf(out).AssignableTo(field.Type()) {
		return nil, ErrUnfiltered
	}
	copied := reflect.New(rv.Elem().Type())
	copied.Elem().Set(rv.Elem())
	copied.Elem().FieldByName("Params").Set(reflect.ValueOf(out))
	r, ok := copied.Interface().(mcp.Request)
	if !ok {
		return nil, ErrUnfiltered
	}
	return r, nil
}

// Direction says which way a kind of message goes, and so what of it the
// gate filters.
type Direction int

const (
	// Answered: a request the client sends and the server answers; its
	// result and error leave through Receiving.
	Answered Direction = iota + 1
	// Sent: a notification or request the server sends; its params leave
	// through Sending.
	Sent
	// Both: a request either side may send (ping, cancellation).
	Both
	// Inbound: a notification only the client sends; nothing of the
	// server's leaves with it.
	Inbound
	// BelowMiddleware: sent by the go-sdk's transport layer, below any
	// middleware, with only the SDK's own words in it (a cancellation's
	// request id and "context canceled").
	BelowMiddleware
)

func (d Direction) String() string {
	switch d {
	case Answered:
		return "answered"
	case Sent:
		return "sent"
	case Both:
		return "both ways"
	case Inbound:
		return "inbound"
	case BelowMiddleware:
		return "below the middleware"
	}
	return "unknown"
}

// Kinds lists every kind of MCP message, by method, and which way it goes:
// what the server can send a client is each Answered method's result and
// error and each Sent message's params, and all of it passes the gate,
// whatever the method (the middleware does not look at it). The list is
// for the tests, which fail when the SDK knows a method it does not, and
// drive each kind the server offers through a real client.
var Kinds = map[string]Direction{
	"initialize":               Answered,
	"server/discover":          Answered,
	"ping":                     Both,
	"tools/list":               Answered,
	"tools/call":               Answered,
	"resources/list":           Answered,
	"resources/templates/list": Answered,
	"resources/read":           Answered,
	"resources/subscribe":      Answered,
	"resources/unsubscribe":    Answered,
	"prompts/list":             Answered,
	"prompts/get":              Answered,
	"completion/complete":      Answered,
	"logging/setLevel":         Answered,
	"subscriptions/listen":     Answered,

	"notifications/progress":                   Sent,
	"notifications/message":                    Sent,
	"notifications/resources/updated":          Sent,
	"notifications/resources/list_changed":     Sent,
	"notifications/tools/list_changed":         Sent,
	"notifications/prompts/list_changed":       Sent,
	"notifications/elicitation/complete":       Sent,
	"notifications/subscriptions/acknowledged": Sent,
	"sampling/createMessage":                   Sent,
	"elicitation/create":                       Sent,
	"roots/list":                               Sent,
	"notifications/cancelled":                  BelowMiddleware,

	"notifications/initialized":        Inbound,
	"notifications/roots/list_changed": Inbound,
}
