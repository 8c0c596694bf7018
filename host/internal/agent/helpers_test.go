package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ramabana/ramabana-mcp/sdk"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// toolFunc is one tool of a testToolset.
type toolFunc func(ctx context.Context, args json.RawMessage) (*sdk.Result, error)

// testToolset is a small catalog: tools with real behaviour over a folder.
type testToolset struct {
	tools []Tool
	funcs map[string]toolFunc

	mu    sync.Mutex
	calls []string // "name args"
}

func (s *testToolset) Tools() []Tool { return s.tools }

func (s *testToolset) Call(ctx context.Context, name string, args json.RawMessage) (*sdk.Result, error) {
	s.mu.Lock()
	s.calls = append(s.calls, name+" "+string(args))
	s.mu.Unlock()
	f, ok := s.funcs[name]
	if !ok {
		return toolError("unknown tool %q", name), nil
	}
	return f(ctx, args)
}

func (s *testToolset) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

func (s *testToolset) add(name, desc, schema string, f toolFunc) *testToolset {
	if s.funcs == nil {
		s.funcs = map[string]toolFunc{}
	}
	s.tools = append(s.tools, Tool{Name: name, Description: desc, InputSchema: json.RawMessage(schema)})
	s.funcs[name] = f
	return s
}

const viewFileSchema = `{"type":"object","properties":{"path":{"type":"string","description":"file to show"},"offset":{"type":"integer","minimum":1}},"required":["path"],"additionalProperties":false}`

// filesToolset serves view_file and list_files over dir.
func filesToolset(dir string) *testToolset {
	s := &testToolset{}
	s.add("view_file", "Show a file, one `lineno|content` line per line.", viewFileSchema,
		func(ctx context.Context, raw json.RawMessage) (*sdk.Result, error) {
			var a struct{ Path string }
			if err := json.Unmarshal(raw, &a); err != nil {
				return toolError("bad arguments: %v", err), nil
			}
			b, err := os.ReadFile(filepath.Join(dir, filepath.Clean("/"+a.Path)))
			if err != nil {
				return toolError("cannot read %s: no such file; use list_files to see what exists", a.Path), nil
			}
			var out strings.Builder
			for i, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
				fmt.Fprintf(&out, "%d|%s\n", i+1, line)
			}
			return sdk.TextResult(out.String()), nil
		})
	s.add("list_files", "List the files of the served folder.", `{"type":"object","properties":{}}`,
		func(ctx context.Context, raw json.RawMessage) (*sdk.Result, error) {
			ents, err := os.ReadDir(dir)
			if err != nil {
				return nil, err
			}
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			return sdk.TextResult(strings.Join(names, "\n")), nil
		})
	return s
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeConnector is a Connector over in-memory servers; a real one (go-sdk
// clients to upstream processes) lives in upstream/.
type fakeConnector struct {
	servers []Server
	tools   map[string][]Tool // by server id, names without prefix
	failing map[string]error

	mu        sync.Mutex
	connects  []string
	calls     []string
	connected map[string]bool
	closed    int
}

func newFakeConnector() *fakeConnector {
	return &fakeConnector{
		servers: []Server{
			{ID: "github", Description: "GitHub issues and pull requests."},
			{ID: "maven-tools", Description: "Look up Maven artifacts\n and versions."},
		},
		tools: map[string][]Tool{
			"github": {
				{Name: "search_issues", Description: "Search issues.", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
				{Name: "get_issue", Description: "Get one issue.", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)},
			},
			"maven-tools": {
				{Name: "latest_version", Description: "Latest version of an artifact.", InputSchema: json.RawMessage(`{"type":"object"}`)},
			},
		},
		connected: map[string]bool{},
	}
}

func (c *fakeConnector) Available() []Server { return c.servers }

func (c *fakeConnector) Connect(ctx context.Context, id string) ([]Tool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.connects = append(c.connects, id)
	if err := c.failing[id]; err != nil {
		return nil, err
	}
	c.connected[id] = true
	var out []Tool
	for _, t := range c.tools[id] {
		t.Name = id + "__" + t.Name
		out = append(out, t)
	}
	return out, nil
}

func (c *fakeConnector) Call(ctx context.Context, name string, args json.RawMessage) (*sdk.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, name+" "+string(args))
	id, tool, _ := strings.Cut(name, "__")
	if !c.connected[id] {
		return nil, fmt.Errorf("server %q is not connected", id)
	}
	return sdk.TextResult(fmt.Sprintf("%s answered %s(%s)", id, tool, args)), nil
}

func (c *fakeConnector) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed++
	return nil
}

func (c *fakeConnector) snapshot() (connects, calls []string, closed int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.connects...), append([]string(nil), c.calls...), c.closed
}

func toolNames(ts []Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

func call(id, name, args string) ToolCall { return ToolCall{ID: id, Name: name, Arguments: args} }

// toolError is a failed result, as sdk.Failf makes of a handler's failure.
func toolError(format string, args ...any) *sdk.Result {
	return &sdk.Result{IsError: true, Content: []sdk.Content{{Text: fmt.Sprintf(format, args...)}}}
}
