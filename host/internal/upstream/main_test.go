package upstream

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/internal/jsonmember"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverModeEnv makes the test binary run as a stdio MCP server (the
// go-sdk's fork-and-exec trick) instead of running tests.
const serverModeEnv = "UPSTREAM_TEST_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(serverModeEnv); mode != "" {
		os.Unsetenv(serverModeEnv)
		srv, err := newTestServer(mode)
		if err != nil {
			log.Fatal(err)
		}
		var transport mcp.Transport = &mcp.StdioTransport{}
		if mode == "emptycursor" {
			transport = emptyCursorServer{transport}
		}
		if err := srv.Run(context.Background(), transport); err != nil {
			log.Fatal(err)
		}
		return
	}
	os.Exit(m.Run())
}

// testToolNames are the test server's tools in the order it lists them
// (the go-sdk server lists by name), two to a page.
var testToolNames = []string{"child_pid", "cwd", "echo", "env", "fail", "media", "structured"}

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to return"`
}

type envArgs struct {
	Name string `json:"name" jsonschema:"the variable to read"`
}

type count struct {
	N int `json:"n"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// newTestServer builds the go-sdk server the tests connect to. mode picks a
// tools/list behaviour: "ok" paginates honestly; "repeat", "endless",
// "failpage" and "unsorted" misbehave as their names say.
func newTestServer(mode string) (*mcp.Server, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "upstream-test", Version: "1"},
		&mcp.ServerOptions{PageSize: 2, Instructions: "test server"})
	childPID := 0
	if os.Getenv("UPSTREAM_TEST_CHILD") == "1" {
		// A process the server leaves behind when it exits: only a kill of
		// the process group ends it.
		child := exec.Command("sleep", "300")
		if err := child.Start(); err != nil {
			return nil, err
		}
		childPID = child.Process.Pid
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Title: "Echo", Description: "Returns text.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
			return text(a.Text), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "fail", Description: "Always fails."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("it failed on purpose")
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "env", Description: "Reads an environment variable."},
		func(_ context.Context, _ *mcp.CallToolRequest, a envArgs) (*mcp.CallToolResult, any, error) {
			return text(os.Getenv(a.Name)), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "cwd", Description: "Returns the working directory."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			wd, err := os.Getwd()
			return text(wd), nil, err
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "child_pid", Description: "Returns the pid of the left-behind child, or 0."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return text(strconv.Itoa(childPID)), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "media", Description: "Returns an image and a resource."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.ImageContent{Data: []byte("\x89PNG"), MIMEType: "image/png"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "hello"}},
			}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "structured", Description: "Returns structured output."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, count, error) {
			return nil, count{N: 7}, nil
		})

	if mode == "longname" {
		// Two tools whose <id>__<tool> is longer than MaxName and alike but
		// for their ends.
		for _, end := range []string{"one", "two"} {
			name := strings.Repeat("very_long_tool_name_", 5) + end
			mcp.AddTool(srv, &mcp.Tool{Name: name, Description: "Returns its own name."},
				func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
					return text(name), nil, nil
				})
		}
	}

	switch mode {
	case "slow":
		// wait blocks until the call is cancelled, sending progress first.
		mcp.AddTool(srv, &mcp.Tool{Name: "wait", Description: "Waits until cancelled."},
			func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				if tok := req.Params.GetProgressToken(); tok != nil {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2, Message: "waiting"})
				}
				<-ctx.Done()
				return nil, nil, ctx.Err()
			})
	case "changing":
		// grow adds a tool, and the server says its list changed.
		n := 0
		mcp.AddTool(srv, &mcp.Tool{Name: "grow", Description: "Adds a tool."},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				n++
				name := fmt.Sprintf("grown_%d", n)
				mcp.AddTool(srv, &mcp.Tool{Name: name, Description: "Grown."},
					func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
						return text(name), nil, nil
					})
				return text(name), nil, nil
			})
	case "stuck":
		// The handshake (initialize, or server/discover first) is never
		// answered.
		srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "initialize" || method == "server/discover" {
					<-ctx.Done()
					return nil, ctx.Err()
				}
				return next(ctx, method, req)
			}
		})
	}

	var listTools func(cursor string) (*mcp.ListToolsResult, error)
	tool := func(name string) *mcp.Tool {
		return &mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}
	}
	switch mode {
	case "ok", "longname", "slow", "changing", "stuck":
	case "repeat":
		// Page 1 points to "again", and so does every page after.
		listTools = func(string) (*mcp.ListToolsResult, error) {
			return &mcp.ListToolsResult{Tools: []*mcp.Tool{tool("t")}, NextCursor: "again"}, nil
		}
	case "endless":
		listTools = func(cursor string) (*mcp.ListToolsResult, error) {
			n, _ := strconv.Atoi(strings.TrimPrefix(cursor, "p"))
			return &mcp.ListToolsResult{Tools: []*mcp.Tool{tool(fmt.Sprintf("t%d", n))}, NextCursor: fmt.Sprintf("p%d", n+1)}, nil
		}
	case "failpage":
		listTools = func(cursor string) (*mcp.ListToolsResult, error) {
			if cursor == "" {
				return &mcp.ListToolsResult{Tools: []*mcp.Tool{tool("t")}, NextCursor: "second"}, nil
			}
			return nil, errors.New("page store is broken")
		}
	case "emptycursor":
		// "" is the cursor of the second page (emptyCursorServer puts it on
		// the wire for EMPTY); an absent nextCursor ends the list.
		pages := map[string]*mcp.ListToolsResult{
			"":      {Tools: []*mcp.Tool{tool("first"), tool("second")}, NextCursor: "EMPTY"},
			"EMPTY": {Tools: []*mcp.Tool{tool("third")}},
		}
		listTools = func(cursor string) (*mcp.ListToolsResult, error) { return pages[cursor], nil }
	case "unsorted":
		pages := map[string]*mcp.ListToolsResult{
			"":  {Tools: []*mcp.Tool{tool("zeta"), tool("alpha")}, NextCursor: "b"},
			"b": {Tools: []*mcp.Tool{tool("mid"), tool("alpha")}, NextCursor: "c"},
			"c": {Tools: []*mcp.Tool{tool("beta")}},
		}
		listTools = func(cursor string) (*mcp.ListToolsResult, error) { return pages[cursor], nil }
	default:
		return nil, fmt.Errorf("unknown test server mode %q", mode)
	}
	if listTools != nil {
		srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method != "tools/list" {
					return next(ctx, method, req)
				}
				cursor := ""
				if p, ok := req.GetParams().(*mcp.ListToolsParams); ok && p != nil {
					cursor = p.Cursor
				}
				return listTools(cursor)
			}
		})
	}
	return srv, nil
}

// stdioServer is a config entry that runs this test binary as a server.
func stdioServer(t *testing.T, id, mode string) Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Server{
		ID:          id,
		Description: "test server " + id,
		Type:        TypeStdio,
		Command:     exe,
		// GORACE: a race-enabled server otherwise sleeps 1s when it exits.
		Env: map[string]string{serverModeEnv: mode, "GORACE": "atexit_sleep_ms=0"},
	}
}

// httpServer serves a test server on 127.0.0.1 over streamable HTTP
// ("http") or SSE ("sse"). A non-empty token is required as a bearer token.
func httpServer(t *testing.T, typ, mode, token string) string {
	t.Helper()
	srv, err := newTestServer(mode)
	if err != nil {
		t.Fatal(err)
	}
	get := func(*http.Request) *mcp.Server { return srv }
	var h http.Handler
	if typ == TypeSSE {
		h = mcp.NewSSEHandler(get, nil)
	} else {
		h = mcp.NewStreamableHTTPHandler(get, nil)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// connect connects s and closes the connection when the test ends.
func connect(t *testing.T, s Server, opts ConnectOptions) *Conn {
	t.Helper()
	c, err := Connect(t.Context(), s, opts)
	if err != nil {
		t.Fatalf("Connect(%s): %v", s.ID, err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close(%s): %v", s.ID, err)
		}
	})
	return c
}

// alive reports whether pid is a process that has not exited (a zombie
// waiting for its parent counts as exited).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// emptyCursorServer makes the go-sdk server speak the cursor "" on the
// wire, which its types cannot: the server's nextCursor EMPTY goes out as
// "", and a request's "cursor": "" (present, not absent) comes in as EMPTY.
type emptyCursorServer struct{ mcp.Transport }

func (t emptyCursorServer) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	return emptyCursorServerConn{conn}, err
}

type emptyCursorServerConn struct{ mcp.Connection }

func (c emptyCursorServerConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/list" {
		if params, ok := jsonmember.ReplaceString(req.Params, "cursor", "", "EMPTY"); ok {
			r := *req
			r.Params = params
			msg = &r
		}
	}
	return msg, err
}

func (c emptyCursorServerConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if result, ok := jsonmember.ReplaceString(resp.Result, "nextCursor", "EMPTY", ""); ok {
			r := *resp
			r.Result = result
			msg = &r
		}
	}
	return c.Connection.Write(ctx, msg)
}
