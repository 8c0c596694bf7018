package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// binary is this command, built once for the package.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "testupstream")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "testupstream")
	// By import path, as host/e2e builds it: the two share the link (proctest.Build).
	if err := proctest.Build(binary, nil, "github.com/ramabana/ramabana-mcp/internal/testupstream"); err != nil {
		fmt.Fprintf(os.Stderr, "build testupstream: %v\n", err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// okTools are mode ok's tools in the order the server lists them.
var okTools = []string{"a_tool_with_a_rather_long_name_that_needs_shortening_for_clients",
	"add", "crash", "echo", "fail", "pid", "slow", "undescribed", "write_note"}

// listening is the line -http prints.
var listening = regexp.MustCompile(`^listening (http://127\.0\.0\.1:[0-9]+/mcp)\n$`)

// startHTTP runs the server over HTTP and returns its URL.
func startHTTP(t *testing.T, mode string) string {
	t.Helper()
	cmd := exec.Command(binary, "-mode", mode, "-http", "127.0.0.1:0")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	m := listening.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("first line on stdout: %q, %v; want %q", line, err, listening)
	}
	return m[1]
}

func TestClient(t *testing.T) {
	t.Parallel()
	transports := map[string]func(t *testing.T) mcp.Transport{
		"stdio": func(t *testing.T) mcp.Transport {
			cmd := exec.Command(binary)
			cmd.Stderr = os.Stderr
			t.Cleanup(func() {
				if cmd.Process != nil {
					_ = cmd.Process.Kill()
				}
			})
			return &mcp.CommandTransport{Command: cmd}
		},
		"http": func(t *testing.T) mcp.Transport {
			return &mcp.StreamableClientTransport{Endpoint: startHTTP(t, "ok")}
		},
	}
	for name, transport := range transports {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
			session, err := client.Connect(t.Context(), transport(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = session.Close() })
			if got := session.InitializeResult().Instructions; got != "test upstream: ok" {
				t.Errorf("instructions %q", got)
			}

			first, err := session.ListTools(t.Context(), nil)
			if err != nil || first.NextCursor == "" {
				t.Fatalf("first page: %v, %v; want a next page", first, err)
			}
			var names []string
			for tool, err := range session.Tools(t.Context(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, tool.Name)
			}
			if diff := cmp.Diff(okTools, names); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}

			res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
			if err != nil {
				t.Fatal(err)
			}
			if tc, ok := res.Content[0].(*mcp.TextContent); !ok || res.IsError || tc.Text != "hi" {
				t.Errorf("echo: %+v", res)
			}
		})
	}
}

// TestRawPages walks tools/list in raw JSON-RPC, where "nextCursor": ""
// and an absent nextCursor differ.
func TestRawPages(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		mode, transport string
		wantEmpty       int // pages whose nextCursor is ""
	}{
		"ok":                {mode: "ok", transport: "stdio"},
		"emptycursor":       {mode: "emptycursor", transport: "stdio", wantEmpty: 1},
		"emptycursor, http": {mode: "emptycursor", transport: "http", wantEmpty: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var call func(id int, method string, params any) json.RawMessage
			if tc.transport == "http" {
				call = rawHTTP(t, startHTTP(t, tc.mode))
			} else {
				call = rawStdio(t, tc.mode)
			}
			call(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
				"clientInfo": map[string]any{"name": "raw", "version": "0"}})
			call(0, "notifications/initialized", nil)

			var names []string
			empty := 0
			var params any // page 1: no cursor at all
			for id := 2; ; id++ {
				if id > 20 {
					t.Fatalf("no end after %d pages: %v", id-2, names)
				}
				var page struct {
					Tools      []struct{ Name string }
					NextCursor *string
				}
				if err := json.Unmarshal(call(id, "tools/list", params), &page); err != nil {
					t.Fatal(err)
				}
				for _, tool := range page.Tools {
					names = append(names, tool.Name)
				}
				if page.NextCursor == nil {
					break
				}
				if *page.NextCursor == "" {
					empty++
				}
				params = map[string]string{"cursor": *page.NextCursor}
			}
			if diff := cmp.Diff(okTools, names); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if empty != tc.wantEmpty {
				t.Errorf("%d pages with nextCursor \"\", want %d", empty, tc.wantEmpty)
			}
		})
	}
}

// message is a JSON-RPC message; id 0 makes it a notification.
func message(id int, method string, params any) []byte {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != 0 {
		m["id"] = id
	}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	return b
}

// result is the result of the message in data that responds to id; ok is
// false when data holds no such message.
func result(t *testing.T, data []byte, id int) (json.RawMessage, bool) {
	t.Helper()
	var m struct {
		ID     *int
		Result json.RawMessage
		Error  json.RawMessage
	}
	if json.Unmarshal(data, &m) != nil || m.ID == nil || *m.ID != id {
		return nil, false
	}
	if m.Error != nil {
		t.Fatalf("request %d: error %s", id, m.Error)
	}
	return m.Result, true
}

// rawStdio starts the server over stdio and returns a function that sends
// one message and returns the result of its response (nil for a
// notification).
func rawStdio(t *testing.T, mode string) func(int, string, any) json.RawMessage {
	cmd := exec.Command(binary, "-mode", mode)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	return func(id int, method string, params any) json.RawMessage {
		if _, err := stdin.Write(append(message(id, method, params), '\n')); err != nil {
			t.Fatal(err)
		}
		if id == 0 {
			return nil
		}
		for lines.Scan() {
			if res, ok := result(t, lines.Bytes(), id); ok {
				return res
			}
		}
		t.Fatalf("no answer to %s: %v", method, lines.Err())
		return nil
	}
}

// rawHTTP is rawStdio for the streamable HTTP server at url, whose answers
// are JSON or SSE events.
func rawHTTP(t *testing.T, url string) func(int, string, any) json.RawMessage {
	session := ""
	return func(id int, method string, params any) json.RawMessage {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, bytes.NewReader(message(id, method, params)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
			session = s
		}
		body, err := io.ReadAll(resp.Body)
		if resp.StatusCode/100 != 2 || err != nil {
			t.Fatalf("%s: %s %v: %s", method, resp.Status, err, body)
		}
		if id == 0 {
			return nil
		}
		for line := range strings.Lines(string(body)) {
			if res, ok := result(t, []byte(strings.TrimPrefix(line, "data: ")), id); ok {
				return res
			}
		}
		t.Fatalf("no answer to %s in %s", method, body)
		return nil
	}
}

func TestUnknownMode(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(binary, "-mode", "nonsense")
	var stderr, stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), `unknown mode "nonsense"`) || stdout.Len() != 0 {
		t.Errorf("-mode nonsense: %v, stdout %q, stderr %q; want exit 2 and the mode named on stderr", err, stdout.String(), stderr.String())
	}
}
