package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// Version is the plugin's version, sent in Describe and in the User-Agent.
const Version = "0.1.0"

// userAgent names the server, so that site operators can tell who fetched.
const userAgent = "ramabana-mcp/" + Version + " (web plugin; +https://github.com/ramabana/ramabana-mcp)"

// New returns the web plugin, ready for sdk.Serve.
func New() *sdk.Toolbox {
	return newToolbox(newServer())
}

func newToolbox(s *server) *sdk.Toolbox {
	box := sdk.NewToolbox("web", Version, "Fetch web pages as clean markdown and search the web.")
	box.AddGroup(sdk.GroupSpec{
		Name:        "web",
		Description: "Fetch a URL as markdown or text, paged; search the web through a configured SearXNG or Brave Search provider.",
		Mode:        sdk.ModeDefault,
	},
		tool(fetchSpec, fetchSchema, s.fetchURL),
		tool(searchSpec, searchSchema, s.webSearch),
	)
	return box
}

// server holds what the tools share. Its fields other than the cache are
// set once, before serving; tests shrink the limits.
type server struct {
	client *http.Client
	// maxBody caps how many bytes of a response body are read.
	maxBody int64
	// searchTimeout bounds one web_search call.
	searchTimeout time.Duration
	getenv        func(string) string

	pages pageCache
}

func newServer() *server {
	return &server{
		client:        newClient(),
		maxBody:       defaultMaxBody,
		searchTimeout: 30 * time.Second,
		getenv:        os.Getenv,
		pages:         pageCache{maxEntries: 8, maxBytes: 16 << 20, ttl: 10 * time.Minute},
	}
}

// toolError is a failure the model can act on; handlers return it and the
// tool adapter turns it into an error result.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

func failf(format string, args ...any) error {
	return &toolError{msg: fmt.Sprintf(format, args...)}
}

// errWebOff is the text of every call when the host does not allow the web.
const errWebOff = "web access is turned off on this server (the host runs with --web=false), so %s cannot reach the network; ask the user to restart ramabana-mcp with --web"

// handler is a tool's body, called only when the host allows the web.
type handler[In any] func(ctx context.Context, req *sdk.Request, args In) (*sdk.Result, error)

// tool declares a typed tool that refuses to run without the web, and
// whose *toolError failures become error results and other errors faults.
func tool[In any](spec sdk.ToolSpec, schema json.RawMessage, fn handler[In]) sdk.Tool {
	spec.InputSchema = schema
	return sdk.TypedTool(spec, func(ctx context.Context, req *sdk.Request, args In) (*sdk.Result, error) {
		if !req.Host.Web {
			return sdk.Errorf(errWebOff, spec.Name), nil
		}
		res, err := fn(ctx, req, args)
		if te := (*toolError)(nil); errors.As(err, &te) {
			return sdk.Errorf("%s", te.msg), nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec.Name, err)
		}
		return res, nil
	})
}

// schemaFor infers the input schema of In and lets fix add what struct tags
// cannot say (defaults, bounds). It panics on a bad type, a programming
// error found at start-up.
func schemaFor[In any](fix func(props map[string]*jsonschema.Schema)) json.RawMessage {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("web: schema: %v", err))
	}
	if fix != nil {
		fix(s.Properties)
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("web: schema: %v", err))
	}
	return b
}

func intDefault(p *jsonschema.Schema, def int, minimum, maximum float64) {
	p.Default = json.RawMessage(fmt.Sprint(def))
	p.Minimum = &minimum
	if maximum > 0 {
		p.Maximum = &maximum
	}
}

// openWorld marks a tool as reaching outside the machine.
func openWorld() sdk.Annotations {
	t := true
	return sdk.Annotations{OpenWorld: &t}
}

var _ error = (*toolError)(nil)
