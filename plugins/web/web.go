package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"

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
	box := sdk.NewToolbox("web", sdk.WithVersion(Version),
		sdk.WithDescription("Fetch web pages as clean markdown and search the web."))
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

// errWebOff is the text of every call when the host does not allow the web.
const errWebOff = "web access is turned off on this server (the host runs with --web=false), so %s cannot reach the network; ask the user to restart ramabana-mcp with --web"

// handler is a tool's body, called only when the host allows the web.
type handler[In any] func(ctx context.Context, req *sdk.Request, args In) (*sdk.Result, error)

// tool declares a typed tool that refuses to run without the web, and
// whose sdk.Failf failures become error results and other errors faults.
// The schemas are declared with sdk.LazySchemaFor, so they are built by the
// first New, not at init by every process that links the package.
func tool[In any](spec sdk.ToolSpec, schema func() json.RawMessage, fn handler[In]) sdk.Tool {
	spec.InputSchema = schema()
	return sdk.TypedTool(spec, func(ctx context.Context, req *sdk.Request, args In) (*sdk.Result, error) {
		if !req.Host.Web {
			return nil, sdk.Failf(errWebOff, spec.Name)
		}
		res, err := fn(ctx, req, args)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec.Name, err)
		}
		return res, nil
	})
}

// openWorld marks a tool as reaching outside the machine.
func openWorld() sdk.Annotations {
	t := true
	return sdk.Annotations{OpenWorld: &t}
}
