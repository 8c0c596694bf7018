package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// transports returns the honest test server over stdio, streamable HTTP
// and SSE.
func transports(t *testing.T) map[string]Server {
	return map[string]Server{
		"stdio": stdioServer(t, "local", "ok"),
		"http":  {ID: "web", Type: TypeHTTP, URL: httpServer(t, TypeHTTP, "ok", "")},
		"sse":   {ID: "old", Type: TypeSSE, URL: httpServer(t, TypeSSE, "ok", "")},
	}
}

func TestConnToolsAndCall(t *testing.T) {
	t.Parallel()
	for name, s := range transports(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := connect(t, s, ConnectOptions{})
			if got := c.Instructions(); got != "test server" {
				t.Errorf("Instructions() = %q", got)
			}
			tools, err := c.Tools(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools {
				names = append(names, tl.Name)
				if tl.Server != s.ID || tl.Namespaced != Namespace(s.ID, tl.Name) {
					t.Errorf("tool %+v: wrong server or namespaced name", tl)
				}
			}
			if diff := cmp.Diff(testToolNames, names); diff != "" {
				t.Errorf("tool names (-want +got):\n%s", diff)
			}
			echo := tools[2]
			if echo.Title != "Echo" || echo.Description != "Returns text." || echo.Annotations == nil || !echo.Annotations.ReadOnlyHint {
				t.Errorf("echo tool = %+v", echo)
			}
			var schema struct {
				Type       string
				Properties map[string]any
			}
			if err := json.Unmarshal(echo.InputSchema, &schema); err != nil || schema.Type != "object" || schema.Properties["text"] == nil {
				t.Errorf("echo schema = %s (%v)", echo.InputSchema, err)
			}

			tests := map[string]struct {
				tool string
				args string
				want *sdk.Result
			}{
				"text": {"echo", `{"text":"hi there"}`, &sdk.Result{Content: []sdk.Content{{Text: "hi there"}}}},
				"isError": {"fail", ``, &sdk.Result{IsError: true,
					Content: []sdk.Content{{Text: "it failed on purpose"}}}},
				"media": {"media", `null`, &sdk.Result{Content: []sdk.Content{
					{Image: &sdk.Image{Data: []byte("\x89PNG"), MIMEType: "image/png"}},
					{Resource: &sdk.Resource{URI: "file:///a.txt", MIMEType: "text/plain", Text: "hello"}},
				}}},
				"structured": {"structured", `{}`, &sdk.Result{
					Content:    []sdk.Content{{Text: `{"n":7}`}},
					Structured: json.RawMessage(`{"n":7}`),
				}},
			}
			for name, tt := range tests {
				t.Run(name, func(t *testing.T) {
					got, err := c.Call(t.Context(), tt.tool, json.RawMessage(tt.args), nil)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(tt.want, got); diff != "" {
						t.Errorf("Call(%s) (-want +got):\n%s", tt.tool, diff)
					}
				})
			}
			if _, err := c.Call(t.Context(), "echo", json.RawMessage(`[1]`), nil); err == nil {
				t.Error("Call with array arguments: no error")
			}
			if _, err := c.Call(t.Context(), "no_such_tool", nil, nil); err == nil {
				t.Error("Call of an unknown tool: no error")
			}
		})
	}
}

// TestConnListsEveryPage: tools come in upstream order across pages, and ""
// is a valid cursor (docs/upstream.md, "Pagination"): a server whose second
// page's cursor is "" gets asked for that page, with "cursor": "" on the
// wire; only an absent nextCursor ends the walk.
func TestConnListsEveryPage(t *testing.T) {
	t.Parallel()
	for mode, want := range map[string][]string{
		"unsorted":    {"odd__zeta", "odd__alpha", "odd__mid", "odd__beta"},
		"emptycursor": {"odd__first", "odd__second", "odd__third"},
	} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			c := connect(t, stdioServer(t, "odd", mode), ConnectOptions{})
			tools, err := c.Tools(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools {
				names = append(names, tl.Namespaced)
			}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConnPaginationFailures(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		mode     string
		sentinel error
		want     ToolsListError // Err is checked apart
	}{
		"repeated cursor": {"repeat", ErrRepeatedCursor,
			ToolsListError{Server: "bad", Code: CodeRepeatedCursor, Page: 2, Cursor: "again"}},
		"never stops": {"endless", ErrPaginationExceeded,
			ToolsListError{Server: "bad", Code: CodePaginationExceeded, Page: MaxToolPages + 1, Cursor: fmt.Sprintf("p%d", MaxToolPages)}},
		"failed page": {"failpage", ErrPageFailed,
			ToolsListError{Server: "bad", Code: CodePageFailed, Page: 2, Cursor: "second"}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := connect(t, stdioServer(t, "bad", tt.mode), ConnectOptions{})
			tools, err := c.Tools(t.Context())
			if tools != nil {
				t.Errorf("Tools returned %d tools with the error", len(tools))
			}
			if !errors.Is(err, tt.sentinel) {
				t.Fatalf("Tools error = %v, want %v", err, tt.sentinel)
			}
			var le *ToolsListError
			if !errors.As(err, &le) {
				t.Fatalf("Tools error %T is not a *ToolsListError", err)
			}
			if (le.Err != nil) != (tt.sentinel == ErrPageFailed) {
				t.Errorf("Err = %v", le.Err)
			}
			got := *le
			got.Err = nil
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			for _, other := range []error{ErrRepeatedCursor, ErrPaginationExceeded, ErrPageFailed} {
				if other != tt.sentinel && errors.Is(err, other) {
					t.Errorf("error also matches %v", other)
				}
			}
			t.Log(err)
		})
	}
}

func TestConnEnvAndCwd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := stdioServer(t, "envy", "ok")
	s.Env["GREETING"] = "${UPSTREAM_GREETING} and ${UNSET_VAR:-fallback}"
	s.Cwd = "${WORKDIR}"
	lookup := func(k string) (string, bool) {
		v, ok := map[string]string{"UPSTREAM_GREETING": "hello", "WORKDIR": dir}[k]
		return v, ok
	}
	c := connect(t, s, ConnectOptions{LookupEnv: lookup})
	for tool, tt := range map[string]struct{ args, want string }{
		"env": {`{"name":"GREETING"}`, "hello and fallback"},
		"cwd": {`{}`, dir},
	} {
		res, err := c.Call(t.Context(), tool, json.RawMessage(tt.args), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Content[0].Text; got != tt.want || res.IsError {
			t.Errorf("%s = %q, want %q", tool, got, tt.want)
		}
	}

	s.Env["OTHER"] = "${NOT_SET_ANYWHERE}"
	_, err := Connect(t.Context(), s, ConnectOptions{LookupEnv: lookup})
	if err == nil || err.Error() != `connect MCP server "envy": "env" OTHER: environment variable NOT_SET_ANYWHERE is not set` {
		t.Errorf("Connect with an unset variable: %v", err)
	}
}

// A stdio server gets the base allow-list of the host environment (PATH,
// HOME, the locale, ...) and what its config sets, a host variable passed
// on purpose with ${NAME} included: never the rest, where ramabana's
// bearer token and model and embedding keys are, nor the user's other
// secrets, nor ramabana's Go runtime settings.
func TestConnGetsOnlyTheBaseEnvironmentAndItsConfig(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("LC_ALL", "C")
	for k, v := range map[string]string{
		"OPENAI_API_KEY": "sk-host-secret", "RAMABANA_TOKEN": "host secret", "RAMABANA_MODEL_KEY": "model secret",
		"RAMABANA_EMBED_KEY": "embed secret", "SECRET_X": "made-up secret", "GITHUB_TOKEN": "ghp-passed-on-purpose",
		"GOMAXPROCS": "1",
	} {
		t.Setenv(k, v)
	}
	s := stdioServer(t, "envy", "ok")
	s.Env["GITHUB_TOKEN"] = "${GITHUB_TOKEN}"
	s.Env["RAMABANA_MODEL_KEY"] = "given on purpose"
	c := connect(t, s, ConnectOptions{})
	for name, want := range map[string]string{
		"OPENAI_API_KEY": "", "RAMABANA_TOKEN": "", "RAMABANA_EMBED_KEY": "", "SECRET_X": "", "GOMAXPROCS": "",
		"GITHUB_TOKEN": "ghp-passed-on-purpose", "RAMABANA_MODEL_KEY": "given on purpose",
		"PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME"), "LC_ALL": "C",
	} {
		res, err := c.Call(t.Context(), "env", json.RawMessage(`{"name":"`+name+`"}`), nil)
		if err != nil || res.Content[0].Text != want {
			t.Errorf("%s = %+v, %v; want %q", name, res, err, want)
		}
	}
}

func TestConnHeaders(t *testing.T) {
	t.Parallel()
	for _, typ := range []string{TypeHTTP, TypeSSE} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			s := Server{ID: "secure", Type: typ, URL: httpServer(t, typ, "ok", "s3cret"),
				Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}}
			wrong := ConnectOptions{LookupEnv: func(string) (string, bool) { return "wrong", true }}
			c, err := Connect(t.Context(), s, wrong)
			if err == nil {
				c.Close()
				t.Fatal("Connect with a wrong token: no error")
			}
			if !errors.Is(err, ErrNeedsAuth) || !strings.Contains(err.Error(), "HTTP 401") || strings.Contains(err.Error(), "wrong") {
				t.Errorf("Connect with a wrong token = %v, want ErrNeedsAuth naming HTTP 401, the token hidden", err)
			}
			l := NewLink(s, wrong, nil)
			t.Cleanup(func() { l.Close() })
			if _, err := l.Connect(t.Context()); !errors.Is(err, ErrNeedsAuth) {
				t.Errorf("Link.Connect = %v, want ErrNeedsAuth", err)
			}
			if st := l.Status(); !st.NeedsAuth || st.State != StateFailed {
				t.Errorf("Status = %+v, want failed and needs_auth", st)
			}
			c = connect(t, s, ConnectOptions{LookupEnv: func(string) (string, bool) { return "s3cret", true }})
			res, err := c.Call(t.Context(), "echo", json.RawMessage(`{"text":"in"}`), nil)
			if err != nil || res.Content[0].Text != "in" {
				t.Errorf("Call = %+v, %v", res, err)
			}
		})
	}
}

func TestConnCloseEndsProcessGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep binary")
	}
	t.Parallel()
	s := stdioServer(t, "kids", "ok")
	s.Env["UPSTREAM_TEST_CHILD"] = "1"
	c, err := Connect(t.Context(), s, ConnectOptions{CloseTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Call(t.Context(), "child_pid", nil, nil)
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	// The server may run in a pid namespace of its own, where the pid it
	// reports is not the host's: find its child from outside.
	server := c.Pid()
	var child int
	if _, err := strconv.Atoi(res.Content[0].Text); err == nil {
		if kids := proctest.Children(server); len(kids) == 1 {
			child = kids[0]
		}
	}
	if child == 0 || !alive(child) || !alive(server) {
		c.Close()
		t.Fatalf("before Close: server %d alive %v, child %d alive %v", server, alive(server), child, alive(child))
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(server)); err == nil {
		t.Errorf("server process %d still exists after Close", server)
	}
	// The orphaned child is killed by Close; its new parent reaps it.
	if !proctest.Await(func() bool { return !alive(child) }) {
		t.Errorf("child process %d still running after Close", child)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestConnectFailures(t *testing.T) {
	t.Parallel()
	tests := map[string]Server{
		"no such command":   {ID: "gone", Type: TypeStdio, Command: "/nonexistent/mcp-server"},
		"not an MCP server": {ID: "mute", Type: TypeStdio, Command: "true"},
		"refused":           {ID: "down", Type: TypeHTTP, URL: "http://127.0.0.1:1/mcp"},
	}
	for name, s := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := Connect(t.Context(), s, ConnectOptions{})
			if err == nil {
				c.Close()
				t.Fatal("no error")
			}
			t.Log(err)
		})
	}
}

// The ctx given to Connect bounds the handshake, not the session.
func TestConnOutlivesConnectContext(t *testing.T) {
	t.Parallel()
	for name, s := range transports(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			c, err := Connect(ctx, s, ConnectOptions{})
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			res, err := c.Call(t.Context(), "echo", json.RawMessage(`{"text":"still here"}`), nil)
			if err != nil || res.Content[0].Text != "still here" {
				t.Errorf("Call after the connect ctx ended = %+v, %v", res, err)
			}
		})
	}
}

// What a ${VAR} expanded to never shows in an error: a token in a url's
// query would reach the log, the status resource and the activity feed.
func TestConnErrorsHideExpandedSecrets(t *testing.T) {
	t.Parallel()
	s := Server{ID: "remote", Type: TypeHTTP, URL: "http://127.0.0.1:1/mcp?token=${TOK}"}
	lookup := func(string) (string, bool) { return "hunter2-secret", true }
	_, err := Connect(t.Context(), s, ConnectOptions{LookupEnv: lookup})
	if err == nil {
		t.Fatal("connected to a closed port")
	}
	if strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("err = %v", err)
	}
}
