//go:build linux

package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"go.uber.org/goleak"
)

// These tests run the fake server (fake_test.go) as a real process behind
// the client's stdio. They are not parallel: goleak compares goroutines.

// startFake starts the fake server with opts (fakeOpts) and closes it when
// the test ends.
func startFake(t *testing.T, opts string, edit func(*Config)) *Client {
	t.Helper()
	cfg := Config{
		Command: []string{os.Args[0]},
		Env:     fakeEnviron(opts),
		Folders: []string{"/work/a b", "/work/c"},
		Grace:   2 * time.Second,
	}
	if edit != nil {
		edit(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), proctest.Patience)
	defer cancel()
	c, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// fakeEnviron is the fake server's environment. Under the race detector a
// process exiting with status 0 sleeps a second first, unless told not to.
func fakeEnviron(opts string) []string {
	return append(os.Environ(), fakeEnv+"=1", fakeOpts+"="+opts, "GORACE=atexit_sleep_ms=0")
}

func bg(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), proctest.Patience)
	t.Cleanup(cancel)
	return ctx
}

func TestInitializeNegotiatesEncoding(t *testing.T) {
	for _, tc := range []struct {
		opts string
		want Encoding
	}{{"", UTF16}, {"utf8", UTF8}} {
		c := startFake(t, tc.opts, nil)
		if got := c.Encoding(); got != tc.want {
			t.Errorf("opts %q: Encoding() = %s, want %s", tc.opts, got, tc.want)
		}
		var p struct {
			ProcessID        *int                `json:"processId"`
			RootURI          string              `json:"rootUri"`
			WorkspaceFolders []map[string]string `json:"workspaceFolders"`
			Capabilities     struct {
				General struct {
					PositionEncodings []string `json:"positionEncodings"`
				} `json:"general"`
				Window struct {
					WorkDoneProgress bool `json:"workDoneProgress"`
				} `json:"window"`
			} `json:"capabilities"`
		}
		if err := c.Call(bg(t), "test/params", "initialize", &p); err != nil {
			t.Fatal(err)
		}
		if p.ProcessID == nil || *p.ProcessID != os.Getpid() {
			t.Errorf("processId = %v, want %d", p.ProcessID, os.Getpid())
		}
		if p.RootURI != "file:///work/a%20b" || len(p.WorkspaceFolders) != 2 || p.WorkspaceFolders[1]["uri"] != "file:///work/c" {
			t.Errorf("rootUri %q, folders %v", p.RootURI, p.WorkspaceFolders)
		}
		if got := p.Capabilities.General.PositionEncodings; !reflect.DeepEqual(got, []string{"utf-8", "utf-16"}) || !p.Capabilities.Window.WorkDoneProgress {
			t.Errorf("capabilities: %+v", p.Capabilities)
		}
		if err := c.Close(bg(t)); err != nil {
			t.Errorf("Close: %v", err)
		}
		if !errors.Is(c.Err(), ErrClosed) {
			t.Errorf("Err() after Close = %v, want ErrClosed", c.Err())
		}
		if err := c.Call(bg(t), "test/echo", nil, nil); !errors.Is(err, ErrClosed) {
			t.Errorf("a call after Close: %v, want ErrClosed", err)
		}
	}
}

func TestProcessIDNull(t *testing.T) {
	c := startFake(t, "", func(cfg *Config) { cfg.ProcessID = -1 })
	var p map[string]json.RawMessage
	if err := c.Call(bg(t), "test/params", "initialize", &p); err != nil {
		t.Fatal(err)
	}
	if string(p["processId"]) != "null" {
		t.Errorf("processId = %s, want null", p["processId"])
	}
}

func TestStartFailures(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	_, err := Start(bg(t), Config{Command: []string{"/nonexistent/lsp-server"}})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/lsp-server") {
		t.Errorf("a missing program: %v", err)
	}
	var pid int
	_, err = Start(bg(t), Config{
		Command: []string{os.Args[0]},
		Env:     fakeEnviron("failinit"),
		Start: func(cmd *exec.Cmd) error {
			setGroup(cmd)
			err := cmd.Start()
			pid = cmd.Process.Pid
			return err
		},
	})
	var re *ResponseError
	if !errors.As(err, &re) || re.Message != "cannot start" {
		t.Errorf("a failing initialize: %v", err)
	}
	if proctest.Alive(pid) {
		t.Errorf("the server that failed to initialize still runs")
	}
}

func TestConcurrentCalls(t *testing.T) {
	c := startFake(t, "", nil)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Go(func() {
			want := fmt.Sprintf("value %d", i)
			var got string
			// Random delays make the server answer out of order.
			if err := c.Call(bg(t), "test/echo", map[string]any{"value": want, "delayMs": rand.IntN(50)}, &got); err != nil {
				errs <- err
			} else if got != want {
				errs <- fmt.Errorf("got %q, want %q", got, want)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCancel(t *testing.T) {
	c := startFake(t, "", nil)
	ctx, cancel := context.WithTimeout(bg(t), 100*time.Millisecond)
	defer cancel()
	if err := c.Call(ctx, "test/hang", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call whose context ended: %v", err)
	}
	var cancelled []string
	if !proctest.Await(func() bool {
		cancelled = nil
		return c.Call(bg(t), "test/cancelled", nil, &cancelled) == nil && len(cancelled) == 1
	}) {
		t.Fatalf("cancelled ids = %v, want one", cancelled)
	}
	// The ids are the client's: the hang was the second request, after
	// initialize.
	if cancelled[0] != "2" {
		t.Errorf("cancelled ids = %v, want [2]", cancelled)
	}
	// The late answer (RequestCancelled) is dropped, and the connection
	// goes on; so it does after a body that is not JSON and stray answers.
	var got string
	if err := c.Call(bg(t), "test/garbage", nil, &got); err != nil || got != "after garbage" {
		t.Errorf("test/garbage = %q, %v", got, err)
	}
	if err := c.Call(bg(t), "test/echo", map[string]string{"value": "still here"}, &got); err != nil || got != "still here" {
		t.Errorf("test/echo = %q, %v", got, err)
	}
	// A context already done sends nothing.
	done, cancel2 := context.WithCancel(bg(t))
	cancel2()
	if err := c.Call(done, "test/hang", nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("a call with a done context: %v", err)
	}
}

func TestServerRequests(t *testing.T) {
	c := startFake(t, "", func(cfg *Config) {
		cfg.Settings = func(section, scope string) any {
			if section == "fake" && scope == "" {
				return map[string]any{"answer": 42}
			}
			return nil
		}
	})
	var got map[string]json.RawMessage
	if err := c.Call(bg(t), "test/ask", nil, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"configuration": `{"jsonrpc":"2.0","id":"s1","result":[{"answer":42},null]}`,
		"register":      `{"jsonrpc":"2.0","id":"s2","result":null}`,
		"create":        `{"jsonrpc":"2.0","id":"s3","result":null}`,
		"folders":       `{"jsonrpc":"2.0","id":"s4","result":[{"name":"a b","uri":"file:///work/a%20b"},{"name":"c","uri":"file:///work/c"}]}`,
		"applyEdit":     `{"jsonrpc":"2.0","id":"s5","result":{"applied":false,"failureReason":"this client does not apply edits"}}`,
		"unknown":       `{"jsonrpc":"2.0","id":"s6","error":{"code":-32601,"message":"method not found: custom/unknown"}}`,
	}
	for k, w := range want {
		if string(got[k]) != w {
			t.Errorf("%s: the client answered\n%s\nwant\n%s", k, got[k], w)
		}
	}
}

func TestProgressAndMessages(t *testing.T) {
	progress := make(chan Progress, 10)
	messages := make(chan string, 10)
	var c *Client
	c = startFake(t, "", func(cfg *Config) {
		cfg.OnProgress = func(p Progress) {
			// A callback may call the client.
			if err := c.Call(context.Background(), "test/echo", nil, nil); err != nil {
				t.Errorf("a call from a callback: %v", err)
			}
			progress <- p
		}
		cfg.OnMessage = func(typ int, text string) { messages <- fmt.Sprint(typ, " ", text) }
	})
	if err := c.Call(bg(t), "test/progress", nil, nil); err != nil {
		t.Fatal(err)
	}
	half := 50
	want := []Progress{
		{Token: "7", Kind: "begin", Title: "Indexing", Cancellable: true},
		{Token: "7", Kind: "report", Title: "Indexing", Message: "half", Percentage: &half},
		{Token: `"other"`, Kind: "begin", Title: "Other"},
		{Token: "7", Kind: "end", Title: "Indexing", Message: "done"},
	}
	var got []Progress
	for range want {
		got = append(got, <-progress)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	if msg := <-messages; msg != "3 hello from fake" {
		t.Errorf("message %q", msg)
	}
	if diff := cmp.Diff([]Progress{{Token: `"other"`, Kind: "begin", Title: "Other"}}, c.InProgress()); diff != "" {
		t.Errorf("InProgress (-want +got):\n%s", diff)
	}
}

func TestDiagnostics(t *testing.T) {
	for _, opts := range []string{"", "noversion"} {
		t.Run("opts="+opts, func(t *testing.T) {
			published := make(chan FileDiagnostics, 10)
			c := startFake(t, opts, func(cfg *Config) {
				cfg.OnDiagnostics = func(d FileDiagnostics) { published <- d }
			})
			uri := URIFromPath("/work/a b/x.go")
			if _, ok := c.Diagnostics(uri); ok {
				t.Error("diagnostics before any")
			}
			if err := c.DidOpen(uri, "go", []byte("x := ERROR\n🍕 ERROR")); err != nil {
				t.Fatal(err)
			}
			if err := c.DidOpen(uri, "go", nil); err == nil {
				t.Error("a second DidOpen succeeded")
			}
			d, err := c.AwaitDiagnostics(bg(t), uri, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := []Range{{Position{0, 5}, Position{0, 10}}, {Position{1, 3}, Position{1, 8}}}
			if len(d.Diagnostics) != 2 || d.Diagnostics[0].Range != want[0] || d.Diagnostics[1].Range != want[1] ||
				d.Diagnostics[0].Code != "E1" || d.Diagnostics[0].Severity != SeverityError {
				t.Errorf("diagnostics after DidOpen: %+v", d)
			}
			// Right after the fix, the publication for the error is
			// still the latest: AwaitDiagnostics must not take it.
			v, err := c.DidChange(uri, []byte("x := 1\n"))
			if err != nil || v != 2 {
				t.Fatalf("DidChange = %d, %v", v, err)
			}
			d, err = c.AwaitDiagnostics(bg(t), uri, nil)
			if err != nil || len(d.Diagnostics) != 0 || d.Seq != 2 {
				t.Errorf("diagnostics after the fix: %+v, %v", d, err)
			}
			if opts == "" && (d.Version == nil || *d.Version != 2) {
				t.Errorf("version %v, want 2", d.Version)
			}
			if got, ok := c.Diagnostics(uri); !ok || got.Seq != 2 {
				t.Errorf("Diagnostics = %+v", got)
			}
			if (<-published).Seq != 1 || (<-published).Seq != 2 {
				t.Error("OnDiagnostics did not see both publications in order")
			}
			// ready waits for a later step.
			if _, err := c.DidChange(uri, []byte("ERROR")); err != nil {
				t.Fatal(err)
			}
			d, err = c.AwaitDiagnostics(bg(t), uri, func(d FileDiagnostics) bool { return len(d.Diagnostics) == 1 })
			if err != nil || d.Seq != 3 {
				t.Errorf("diagnostics with ready: %+v, %v", d, err)
			}
			var sent struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
				} `json:"textDocument"`
				ContentChanges []map[string]string `json:"contentChanges"`
			}
			if err := c.Call(bg(t), "test/params", "textDocument/didChange", &sent); err != nil {
				t.Fatal(err)
			}
			if sent.TextDocument.URI != uri || sent.TextDocument.Version != 3 || !reflect.DeepEqual(sent.ContentChanges, []map[string]string{{"text": "ERROR"}}) {
				t.Errorf("didChange sent %+v", sent)
			}
			if err := c.DidClose(uri); err != nil {
				t.Fatal(err)
			}
			if _, err := c.DidChange(uri, nil); err == nil {
				t.Error("DidChange of a closed document succeeded")
			}
			if _, ok := c.Version(uri); ok {
				t.Error("Version of a closed document")
			}
			// A wait that cannot end but by its context.
			ctx, cancel := context.WithTimeout(bg(t), 50*time.Millisecond)
			defer cancel()
			if _, err := c.AwaitDiagnostics(ctx, "file:///nowhere", nil); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("AwaitDiagnostics of a silent document: %v", err)
			}
		})
	}
}

func TestCrashFailsPendingCalls(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	c := startFake(t, "", nil)
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for range 5 {
		wg.Go(func() { errs <- c.Call(bg(t), "test/hang", nil, nil) })
	}
	uri := "file:///x.go"
	waitDiag := make(chan error, 1)
	go func() { _, err := c.AwaitDiagnostics(bg(t), uri, nil); waitDiag <- err }()
	time.Sleep(100 * time.Millisecond) // let them reach the server
	crash := c.Call(bg(t), "test/crash", nil, nil)
	wg.Wait()
	close(errs)
	for _, err := range append(collect(errs), crash, <-waitDiag) {
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Status != "exit status 3" || ee.Stderr != "fake: something went badly wrong" {
			t.Errorf("a pending call: %v", err)
		}
	}
	<-c.Done()
	if err := c.Err(); !strings.Contains(fmt.Sprint(err), "language server lsp.test exited: exit status 3; its stderr ends with:\nfake: something went badly wrong") {
		t.Errorf("Err() = %v", err)
	}
	if err := c.Call(bg(t), "test/echo", nil, nil); err != c.Err() {
		t.Errorf("a call after the crash: %v", err)
	}
	if err := c.DidOpen(uri, "go", nil); err != c.Err() {
		t.Errorf("a notification after the crash: %v", err)
	}
	// Everything has ended without Close (goleak checks); Close then
	// returns at once.
	if err := c.Close(bg(t)); err != nil {
		t.Errorf("Close after a crash: %v", err)
	}
}

// TestNotifyAsTheServerEnds: a notification written after the server has
// closed its input, before the client has learnt that it ended, fails with
// the server's end (what the pending calls get, which callers retry on),
// not with the broken pipe.
func TestNotifyAsTheServerEnds(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	// The wait for the end is bounded by Grace: the suite's patience, so
	// that a slow machine does not fail the test.
	c := startFake(t, "", func(cfg *Config) { cfg.Grace = proctest.Patience })
	if err := c.Notify("test/endInput", nil); err != nil {
		t.Fatal(err)
	}
	// Until the fake has closed its input the writes land in the pipe.
	var err error
	for err == nil {
		err = c.DidOpen("file:///x.go", "go", []byte("package x\n"))
		if err == nil {
			err = c.DidClose("file:///x.go")
		}
	}
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Status != "exit status 4" {
		t.Errorf("a notification as the server ended: %v, want its ExitError", err)
	}
	<-c.Done()
	_ = c.Close(bg(t))
}

func collect(ch chan error) []error {
	var out []error
	for err := range ch {
		out = append(out, err)
	}
	return out
}

func TestProcessGroupEnds(t *testing.T) {
	for _, how := range []string{"close", "crash"} {
		t.Run(how, func(t *testing.T) {
			c := startFake(t, "", nil)
			var pid int
			if err := c.Call(bg(t), "test/child", nil, &pid); err != nil {
				t.Fatal(err)
			}
			child, server := proctest.Find(pid), proctest.Find(c.Pid())
			if !child.Alive() {
				t.Fatal("the child does not run")
			}
			if how == "close" {
				if err := c.Close(bg(t)); err != nil {
					t.Fatal(err)
				}
			} else {
				_ = c.Call(bg(t), "test/crash", nil, nil)
				<-c.Done()
			}
			if server.Alive() || !proctest.Await(func() bool { return !child.Alive() }) {
				t.Errorf("after %s: server alive %v, its child alive %v", how, server.Alive(), child.Alive())
			}
		})
	}
}

func TestCloseKillsAStubbornServer(t *testing.T) {
	c := startFake(t, "stubborn", func(cfg *Config) { cfg.Grace = 200 * time.Millisecond })
	server := proctest.Find(c.Pid())
	err := c.Close(bg(t))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Close = %v, want the shutdown's deadline", err)
	}
	if server.Alive() {
		t.Error("the server still runs")
	}
}

func TestBrokenStreams(t *testing.T) {
	for _, tc := range []struct{ method, cause string }{
		{"test/big", "lsp: frame too large: 2000000 bytes, the limit is 1048576"},
		{"test/closeStdout", ""},
	} {
		t.Run(tc.method, func(t *testing.T) {
			c := startFake(t, "", func(cfg *Config) { cfg.MaxFrame = 1 << 20 })
			server := proctest.Find(c.Pid())
			err := c.Call(bg(t), tc.method, nil, nil)
			var ee *ExitError
			if !errors.As(err, &ee) || ee.Status != "signal: killed" {
				t.Fatalf("%s: %v", tc.method, err)
			}
			if tc.cause != "" && (!errors.Is(err, ErrFrameTooLarge) || !strings.Contains(err.Error(), tc.cause)) {
				t.Errorf("%s: %v, want the cause %q", tc.method, err, tc.cause)
			}
			if server.Alive() {
				t.Error("the server still runs")
			}
		})
	}
}

// set makes the fake answer method with result.
func set(t *testing.T, c *Client, method, result string) {
	t.Helper()
	if err := c.Call(bg(t), "test/set", map[string]any{"method": method, "result": json.RawMessage(result)}, nil); err != nil {
		t.Fatal(err)
	}
}

func sent(t *testing.T, c *Client, method string) string {
	t.Helper()
	var p json.RawMessage
	if err := c.Call(bg(t), "test/params", method, &p); err != nil {
		t.Fatal(err)
	}
	return string(p)
}

const rng = `{"start":{"line":1,"character":2},"end":{"line":1,"character":5}}`

var r125 = Range{Position{1, 2}, Position{1, 5}}

func TestTypedRequests(t *testing.T) {
	c := startFake(t, "", nil)
	ctx, uri, pos := bg(t), "file:///a.go", Position{3, 4}

	set(t, c, "textDocument/references", `[{"uri":"file:///b.go","range":`+rng+`}]`)
	locs, err := c.References(ctx, uri, pos, true)
	if err != nil || !reflect.DeepEqual(locs, []Location{{"file:///b.go", r125}}) {
		t.Errorf("References = %v, %v", locs, err)
	}
	if got := sent(t, c, "textDocument/references"); got != `{"textDocument":{"uri":"file:///a.go"},"position":{"line":3,"character":4},"context":{"includeDeclaration":true}}` {
		t.Errorf("references sent %s", got)
	}

	loc := LocationLink{TargetURI: "file:///b.go", TargetRange: r125, TargetSelectionRange: r125}
	full := Range{Position{0, 0}, Position{9, 1}}
	for _, tc := range []struct {
		answer string
		want   []LocationLink
	}{
		{`null`, nil},
		{`[]`, []LocationLink{}},
		{`{"uri":"file:///b.go","range":` + rng + `}`, []LocationLink{loc}},
		{`[{"uri":"file:///b.go","range":` + rng + `},{"uri":"file:///b.go","range":` + rng + `}]`, []LocationLink{loc, loc}},
		{`[{"originSelectionRange":` + rng + `,"targetUri":"file:///c.go","targetRange":{"start":{"line":0,"character":0},"end":{"line":9,"character":1}},"targetSelectionRange":` + rng + `}]`,
			[]LocationLink{{OriginSelectionRange: &r125, TargetURI: "file:///c.go", TargetRange: full, TargetSelectionRange: r125}}},
	} {
		set(t, c, "textDocument/definition", tc.answer)
		got, err := c.Definition(ctx, uri, pos)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Definition of %s = %+v, %v; want %+v", tc.answer, got, err, tc.want)
		}
	}

	for _, tc := range []struct {
		answer string
		want   *Hover
	}{
		{`null`, nil},
		{`{"contents":{"kind":"markdown","value":"**x** int"},"range":` + rng + `}`, &Hover{MarkupContent{"markdown", "**x** int"}, &r125}},
		{`{"contents":{"kind":"plaintext","value":"x int"}}`, &Hover{Contents: MarkupContent{"plaintext", "x int"}}},
		{`{"contents":"just *text*"}`, &Hover{Contents: MarkupContent{"markdown", "just *text*"}}},
		{`{"contents":{"language":"go","value":"var x int"}}`, &Hover{Contents: MarkupContent{"markdown", "```go\nvar x int\n```"}}},
		{`{"contents":[{"language":"python","value":"x: int"},"The x."]}`, &Hover{Contents: MarkupContent{"markdown", "```python\nx: int\n```\n\nThe x."}}},
		{`{"contents":[]}`, &Hover{Contents: MarkupContent{"markdown", ""}}},
	} {
		set(t, c, "textDocument/hover", tc.answer)
		got, err := c.Hover(ctx, uri, pos)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Hover of %s = %+v, %v; want %+v", tc.answer, got, err, tc.want)
		}
	}

	for _, tc := range []struct {
		answer string
		want   []DocumentSymbol
	}{
		{`null`, []DocumentSymbol{}},
		{`[{"name":"T","detail":"struct{...}","kind":23,"range":{"start":{"line":0,"character":0},"end":{"line":9,"character":1}},"selectionRange":` + rng + `,
		   "children":[{"name":"f","kind":8,"range":` + rng + `,"selectionRange":` + rng + `}]}]`,
			[]DocumentSymbol{{Name: "T", Detail: "struct{...}", Kind: KindStruct, Range: full, SelectionRange: r125,
				Children: []DocumentSymbol{{Name: "f", Kind: KindField, Range: r125, SelectionRange: r125}}}}},
		{`[{"name":"f","kind":12,"location":{"uri":"file:///a.go","range":` + rng + `},"containerName":"T"}]`,
			[]DocumentSymbol{{Name: "f", Kind: KindFunction, Range: r125, SelectionRange: r125, ContainerName: "T"}}},
	} {
		set(t, c, "textDocument/documentSymbol", tc.answer)
		got, err := c.DocumentSymbols(ctx, uri)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("DocumentSymbols of %s = %+v, %v; want %+v", tc.answer, got, err, tc.want)
		}
	}
	if KindStruct.String() != "struct" || SymbolKind(99).String() != "kind 99" {
		t.Errorf("SymbolKind strings: %s, %s", KindStruct, SymbolKind(99))
	}

	set(t, c, "workspace/symbol", `[{"name":"A","kind":12,"location":{"uri":"file:///a.go","range":`+rng+`},"containerName":"p"},{"name":"B","kind":5,"location":{"uri":"file:///b.go"}}]`)
	syms, err := c.WorkspaceSymbols(ctx, "A")
	if want := []SymbolInformation{{"A", KindFunction, Location{"file:///a.go", r125}, "p"}, {"B", KindClass, Location{URI: "file:///b.go"}, ""}}; err != nil || !reflect.DeepEqual(syms, want) {
		t.Errorf("WorkspaceSymbols = %+v, %v", syms, err)
	}
	if got := sent(t, c, "workspace/symbol"); got != `{"query":"A"}` {
		t.Errorf("workspace/symbol sent %s", got)
	}

	for _, tc := range []struct {
		answer string
		want   *PrepareRenameResult
	}{
		{`null`, nil},
		{rng, &PrepareRenameResult{Range: r125}},
		{`{"range":` + rng + `,"placeholder":"x"}`, &PrepareRenameResult{Range: r125, Placeholder: "x"}},
		{`{"defaultBehavior":true}`, &PrepareRenameResult{DefaultBehavior: true}},
	} {
		set(t, c, "textDocument/prepareRename", tc.answer)
		got, err := c.PrepareRename(ctx, uri, pos)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("PrepareRename of %s = %+v, %v; want %+v", tc.answer, got, err, tc.want)
		}
	}

	set(t, c, "textDocument/rename", `{"documentChanges":[{"textDocument":{"uri":"file:///a.go","version":4},"edits":[{"range":`+rng+`,"newText":"y"}]},
		{"textDocument":{"uri":"file:///b.go","version":null},"edits":[]},{"kind":"rename","oldUri":"file:///b.go","newUri":"file:///c.go"}]}`)
	w, err := c.Rename(ctx, uri, pos, "y")
	if err != nil || len(w.DocumentChanges) != 2 || *w.DocumentChanges[0].TextDocument.Version != 4 || w.DocumentChanges[1].TextDocument.Version != nil ||
		!reflect.DeepEqual(w.ResourceOperations, []ResourceOperation{{Kind: "rename", OldURI: "file:///b.go", NewURI: "file:///c.go"}}) {
		t.Errorf("Rename = %+v, %v", w, err)
	}
	if got := sent(t, c, "textDocument/rename"); got != `{"textDocument":{"uri":"file:///a.go"},"position":{"line":3,"character":4},"newName":"y"}` {
		t.Errorf("rename sent %s", got)
	}
	set(t, c, "textDocument/rename", `null`)
	if w, err := c.Rename(ctx, uri, pos, "y"); w != nil || err != nil {
		t.Errorf("Rename answered null = %v, %v", w, err)
	}

	// An error answer comes back as a *ResponseError.
	var re *ResponseError
	if err := c.Call(ctx, "no/such", nil, nil); !errors.As(err, &re) || re.Code != CodeMethodNotFound {
		t.Errorf("an unknown method: %v", err)
	}
	// A result that does not decode says so.
	set(t, c, "textDocument/references", `{"not":"a list"}`)
	if _, err := c.References(ctx, uri, pos, false); err == nil || !strings.Contains(err.Error(), "decoding the result") {
		t.Errorf("a malformed result: %v", err)
	}
}

// BenchmarkReferences measures a request's round trip through the client
// and the fake server's pipes, with an answer of 1,000 locations (about
// the size of a much-used symbol's references): the client's share of a
// warm request's time.
func BenchmarkReferences(b *testing.B) {
	c := startFakeB(b)
	locs := make([]Location, 1000)
	for i := range locs {
		locs[i] = Location{URI: fmt.Sprintf("file:///work/repository/package%d/file.go", i%50), Range: r125}
	}
	answer, _ := json.Marshal(locs)
	if err := c.Call(context.Background(), "test/set", map[string]any{"method": "textDocument/references", "result": json.RawMessage(answer)}, nil); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(answer)))
	for b.Loop() {
		got, err := c.References(context.Background(), "file:///a.go", Position{1, 2}, true)
		if err != nil || len(got) != 1000 {
			b.Fatal(len(got), err)
		}
	}
}

func startFakeB(b *testing.B) *Client {
	c, err := Start(context.Background(), Config{Command: []string{os.Args[0]}, Env: fakeEnviron("")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// A server that stops reading is killed once a write to it has waited
// WriteTimeout: a caller that sends it a document does not wait for ever.
func TestDeafServerKilled(t *testing.T) {
	c := startFake(t, "", func(cfg *Config) { cfg.WriteTimeout = 200 * time.Millisecond })
	if err := c.Notify("test/deaf", nil); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("x"), 4<<20) // more than a pipe holds
	err := c.DidOpen("file:///big.txt", "plaintext", big)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("DidOpen to a deaf server = %v, want the write's deadline", err)
	}
	select {
	case <-c.Done():
	case <-time.After(proctest.Patience):
		t.Fatal("the deaf server was not ended")
	}
	var ee *ExitError
	if !errors.As(c.Err(), &ee) || ee.Status != "signal: killed" {
		t.Errorf("Err = %v, want it killed", c.Err())
	}
}
