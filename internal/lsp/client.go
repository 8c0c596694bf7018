// Package lsp is a client of the Language Server Protocol: it starts a
// language server, speaks JSON-RPC 2.0 with it over the server's stdin and
// stdout, and offers the requests code intelligence needs (references,
// definition, hover, symbols, rename) with their answers decoded from every
// form servers give them in, and the position conversions between LSP's
// positions and byte offsets.
//
// The client decides nothing about trust: the caller chooses the command,
// its environment and working directory, and how it is started (in a
// sandbox, say), and applies the edits a server proposes itself.
package lsp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Config says how to start a language server and what to tell it.
type Config struct {
	// Command is the server's program and arguments ("gopls", or "node",
	// ".../langserver.index.js", "--stdio"). Command[0] is looked up in
	// this process's PATH (not Env's) when it has no slash.
	Command []string
	// Env is the server's environment, as exec.Cmd.Env: nil inherits this
	// process's.
	Env []string
	// Dir is the server's working directory; empty: this process's.
	Dir string
	// Stderr receives what the server writes to stderr; nil discards it.
	// Its last lines are kept for the error a crash reports either way.
	Stderr io.Writer
	// Start starts the command, which has its program, arguments,
	// environment, directory and standard streams set. It may change the
	// rest (sandbox.Start, say). It should make the process lead a process
	// group of its own (Setpgid or Setsid), so that the client can end
	// everything the server started. nil: cmd.Start with Setpgid.
	Start func(cmd *exec.Cmd) error

	// Folders are the workspace folders, absolute paths; the first is the
	// root.
	Folders []string
	// InitializationOptions are sent as initialize's
	// initializationOptions (nil: none).
	InitializationOptions any
	// Settings answers workspace/configuration: the settings of section
	// (such as "gopls" or "python.analysis") for the document or folder
	// scope, a URI or empty. nil, or a nil answer, says "no settings", and
	// servers then use their defaults.
	Settings func(section, scope string) any
	// ProcessID is sent as initialize's processId, the process whose end
	// the server should take as a signal to exit: 0 sends this process's
	// id, a negative one sends null (for a server in a pid namespace of its
	// own, where this process's id means nothing).
	ProcessID int

	// OnProgress, if set, is called for each $/progress report of work
	// done, in the order the server sent them.
	OnProgress func(Progress)
	// OnDiagnostics, if set, is called with each publishDiagnostics.
	OnDiagnostics func(FileDiagnostics)
	// OnMessage, if set, is called with window/logMessage and
	// window/showMessage: LSP's type (1 error, 2 warning, 3 info, 4 log)
	// and the text.
	OnMessage func(typ int, text string)
	// Callbacks run one at a time, on a goroutine of their own, so they may
	// block or make requests; a slow one delays those after it. They must
	// not wait for the server's end (Close, Done): that waits for them.

	// PullDiagnostics offers the server pull diagnostics by dynamic
	// registration too (textDocument/diagnostic; see PullsDiagnostics),
	// as pyright needs to offer them. A server that takes the offer may
	// stop publishing diagnostics (pyright does), so AwaitDiagnostics is
	// then of no use. Servers that declare pull diagnostics statically
	// (gopls, told to) answer them either way.
	PullDiagnostics bool

	// WriteTimeout bounds how long a message to the server may wait for
	// the server to read it (default DefaultWriteTimeout): a server that
	// reads nothing for so long is taken as hung and killed, so that no
	// caller, nor Close, waits on it for ever.
	WriteTimeout time.Duration

	// MaxFrame is the largest message the client accepts from the server,
	// in bytes (default DefaultMaxFrame). A larger one ends the connection.
	MaxFrame int
	// Grace is how long Close waits for the server to shut down and exit
	// before killing it, and how long a server whose output ended may take
	// to exit (default 5 s).
	Grace time.Duration
}

// DefaultWriteTimeout is Config.WriteTimeout's default.
const DefaultWriteTimeout = 30 * time.Second

// Progress is one $/progress report of work done. Title comes with
// "begin" and is repeated on its "report"s and "end".
type Progress struct {
	Token       string // the token's JSON text: "\"abc\"" or "42"
	Kind        string // "begin", "report" or "end"
	Title       string
	Message     string
	Percentage  *int
	Cancellable bool
}

// ErrClosed is (wrapped in) the error of calls made after Close, or
// pending when it ended the server.
var ErrClosed = errors.New("lsp: client closed")

// ExitError reports a server that ended without Close: it crashed, exited,
// closed its output, or broke the protocol. Every call pending then, or
// made later, fails with it.
type ExitError struct {
	Server string // the command's base name
	Cause  error  // what ended the connection first; nil: the process exited
	Status string // how the process ended: "exit status 2", "signal: killed"
	Stderr string // its last lines of stderr, if any
}

func (e *ExitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "lsp: language server %s ", e.Server)
	if e.Cause == nil || errors.Is(e.Cause, io.EOF) || errors.Is(e.Cause, io.ErrUnexpectedEOF) || errors.Is(e.Cause, os.ErrClosed) {
		b.WriteString("exited") // its output ended with it, or was cut
	} else {
		fmt.Fprintf(&b, "broke the protocol (%v) and was stopped", e.Cause)
	}
	if e.Status != "" {
		b.WriteString(": " + e.Status)
	}
	if e.Stderr != "" {
		b.WriteString("; its stderr ends with:\n" + e.Stderr)
	}
	return b.String()
}

func (e *ExitError) Unwrap() error { return e.Cause }

// Client is a connection to one language server process. Its methods are
// safe for concurrent use.
type Client struct {
	cfg    Config
	name   string
	conn   *conn
	cmd    *exec.Cmd
	stdin  *os.File // our end of the server's stdin
	stdout *os.File // our end of the server's stdout
	stderr *tail
	group  bool // the server leads its process group

	encoding Encoding
	caps     json.RawMessage

	closing   chan struct{} // closed when Close begins
	closeOnce sync.Once
	readDone  chan struct{} // the reader returned; readErr is set
	readErr   error
	exited    chan struct{} // the process was reaped; status is set
	status    string
	done      chan struct{} // everything ended; err is set
	err       error

	events *queue

	docMu sync.Mutex // serialises document notifications, in version order

	mu       sync.Mutex
	ended    bool // wait has ended everything: no more publications
	docs     map[string]document
	diags    map[string]*diagState
	progress map[string]Progress // work begun, not yet ended
	// registered are the methods the server registered dynamically, by
	// registration id.
	registered map[string]string
}

// document is an open document.
type document struct {
	uri     string
	version int32
	sentSeq uint64 // the document's publication count when version was sent
}

// diagState is the latest publication for a document, and a channel closed
// at the next.
type diagState struct {
	last FileDiagnostics
	next chan struct{}
}

// Start starts the server, initializes it with the workspace folders, and
// returns once it has answered initialize and been sent initialized. ctx
// bounds the start and initialization; the server runs until Close or
// until it ends. A server that fails to initialize is stopped.
func Start(ctx context.Context, cfg Config) (*Client, error) {
	if len(cfg.Command) == 0 {
		return nil, errors.New("lsp: no command")
	}
	if cfg.MaxFrame <= 0 {
		cfg.MaxFrame = DefaultMaxFrame
	}
	if cfg.Grace <= 0 {
		cfg.Grace = 5 * time.Second
	}
	c := &Client{
		cfg:      cfg,
		name:     filepath.Base(cfg.Command[0]),
		stderr:   &tail{w: cfg.Stderr},
		encoding: UTF16,
		closing:  make(chan struct{}),
		readDone: make(chan struct{}),
		exited:   make(chan struct{}),
		done:     make(chan struct{}),
		events:   newQueue(),
		docs:     map[string]document{},
		diags:    map[string]*diagState{},
		progress: map[string]Progress{},
	}
	if err := c.start(); err != nil {
		c.events.stop()
		return nil, err
	}
	if err := c.initialize(ctx); err != nil {
		c.closeOnce.Do(func() { close(c.closing) })
		_ = c.cmd.Process.Kill()
		<-c.done
		return nil, err
	}
	return c, nil
}

// start starts the process and the goroutines that serve it.
func (c *Client) start() error {
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return err
	}
	cmd := exec.Command(c.cfg.Command[0], c.cfg.Command[1:]...)
	cmd.Env, cmd.Dir = c.cfg.Env, c.cfg.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, c.stderr
	cmd.WaitDelay = c.cfg.Grace // for stderr held open by an escaped process
	startFn := c.cfg.Start
	if startFn == nil {
		startFn = func(cmd *exec.Cmd) error {
			setGroup(cmd)
			return cmd.Start()
		}
	}
	err = startFn(cmd)
	inR.Close() // the server's ends are its own now
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return fmt.Errorf("lsp: starting %s: %w", c.name, err)
	}
	c.cmd, c.stdin, c.stdout = cmd, inW, outR
	c.group = leadsGroup(cmd.Process.Pid)
	c.conn = newConn(outR, inW, c.cfg.MaxFrame, handlers{request: c.serverRequest, notify: c.serverNotification})
	c.conn.writeTimeout = cmp.Or(c.cfg.WriteTimeout, DefaultWriteTimeout)
	// A notification written as the server ends gets its end (wait fails
	// the connection at most Grace after the process is reaped).
	c.conn.endWait = 2 * c.cfg.Grace
	c.conn.stalled = func() {
		// A server that reads nothing for so long is hung: it ends, and
		// every call with it.
		_ = c.cmd.Process.Kill()
	}
	go c.read()
	go c.wait()
	return nil
}

// read runs the connection until the server's output ends. An end that
// Close did not ask for stops the server.
func (c *Client) read() {
	c.readErr = c.conn.read()
	close(c.readDone)
	select {
	case <-c.closing:
	default:
		_ = c.cmd.Process.Kill() // wait ends the rest
	}
}

// wait reaps the process and ends everything else: the process group is
// killed as soon as the server has exited (so nothing it started outlives
// it), the connection is failed for every pending and later call, and the
// callbacks queue drains.
func (c *Client) wait() {
	notReaped := waitExit(c.cmd.Process.Pid)
	if c.group && notReaped {
		killGroup(c.cmd.Process.Pid)
	}
	_ = c.cmd.Wait()
	if c.group && !notReaped {
		killGroup(c.cmd.Process.Pid)
	}
	c.status = c.cmd.ProcessState.String()
	close(c.exited)
	c.stdin.Close() // writes fail from now on instead of blocking
	select {
	case <-c.readDone:
	case <-time.After(c.cfg.Grace):
		// A process outside the group holds the output open.
	}
	c.stdout.Close()
	<-c.readDone
	select {
	case <-c.closing:
		c.err = ErrClosed
	default:
		c.err = &ExitError{Server: c.name, Cause: c.readErr, Status: c.status, Stderr: c.stderr.String()}
	}
	c.conn.fail(c.err)
	c.mu.Lock()
	c.ended = true
	for _, d := range c.diags {
		close(d.next)
		d.next = nil
	}
	c.mu.Unlock()
	c.conn.handling.Wait()
	c.events.stop() // after every wait a callback could be in has ended
	close(c.done)
}

// initialize runs the initialize handshake.
func (c *Client) initialize(ctx context.Context) error {
	folders := make([]map[string]string, 0, len(c.cfg.Folders))
	for _, f := range c.cfg.Folders {
		folders = append(folders, map[string]string{"uri": URIFromPath(f), "name": filepath.Base(f)})
	}
	var rootURI any
	if len(folders) > 0 {
		rootURI = folders[0]["uri"]
	}
	var pid any = os.Getpid()
	if c.cfg.ProcessID > 0 {
		pid = c.cfg.ProcessID
	} else if c.cfg.ProcessID < 0 {
		pid = nil
	}
	params := map[string]any{
		"processId":             pid,
		"clientInfo":            map[string]string{"name": "ramabana-mcp"},
		"rootUri":               rootURI,
		"workspaceFolders":      folders,
		"capabilities":          c.capabilities(),
		"initializationOptions": c.cfg.InitializationOptions,
	}
	var res struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	if err := c.conn.call(ctx, "initialize", params, &res); err != nil {
		return fmt.Errorf("lsp: initializing %s: %w", c.name, err)
	}
	var caps struct {
		PositionEncoding Encoding `json:"positionEncoding"`
	}
	_ = json.Unmarshal(res.Capabilities, &caps)
	switch caps.PositionEncoding {
	case UTF8, UTF32:
		c.encoding = caps.PositionEncoding
	}
	c.caps = res.Capabilities
	return c.conn.notify("initialized", struct{}{})
}

// capabilities are clientCapabilities, with pull diagnostics offered for
// dynamic registration when the config asks for them.
func (c *Client) capabilities() map[string]any {
	if !c.cfg.PullDiagnostics {
		return clientCapabilities
	}
	caps := maps.Clone(clientCapabilities)
	td := maps.Clone(caps["textDocument"].(map[string]any))
	td["diagnostic"] = map[string]any{"dynamicRegistration": true}
	caps["textDocument"] = td
	return caps
}

// symbolKindValues are every SymbolKind, which the client accepts.
var symbolKindValues = func() []int {
	var v []int
	for k := 1; k < len(symbolKinds); k++ {
		v = append(v, k)
	}
	return v
}()

// clientCapabilities are what the client offers: the requests it makes,
// static registration only (but see Config.PullDiagnostics), no resource
// operations or snippets in edits.
var clientCapabilities = map[string]any{
	"general": map[string]any{"positionEncodings": []Encoding{UTF8, UTF16}},
	"window":  map[string]any{"workDoneProgress": true},
	"workspace": map[string]any{
		"workspaceFolders": true,
		"configuration":    true,
		"workspaceEdit":    map[string]any{"documentChanges": true},
		// Files changes are sent (DidChangeWatchedFiles), never watched
		// at a server's request.
		"didChangeWatchedFiles": map[string]any{"dynamicRegistration": false},
		"symbol":                map[string]any{"symbolKind": map[string]any{"valueSet": symbolKindValues}},
	},
	"textDocument": map[string]any{
		"synchronization": map[string]any{},
		"references":      map[string]any{},
		"definition":      map[string]any{"linkSupport": true},
		"hover":           map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
		"documentSymbol": map[string]any{
			"hierarchicalDocumentSymbolSupport": true,
			"symbolKind":                        map[string]any{"valueSet": symbolKindValues},
		},
		"rename":             map[string]any{"prepareSupport": true},
		"publishDiagnostics": map[string]any{"versionSupport": true},
		"diagnostic":         map[string]any{"dynamicRegistration": false},
	},
}

// Encoding is the position encoding negotiated with the server: UTF8 when
// it offered it, UTF16 otherwise.
func (c *Client) Encoding() Encoding { return c.encoding }

// Capabilities are the server's capabilities, as it sent them.
func (c *Client) Capabilities() json.RawMessage { return c.caps }

// Done is closed once the server has ended, by Close or otherwise, and
// everything the client ran for it has stopped.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is why the server ended once Done is closed: ErrClosed after Close,
// an *ExitError otherwise. It is nil while the server runs.
func (c *Client) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// Pid is the server process's id.
func (c *Client) Pid() int { return c.cmd.Process.Pid }

// Call sends a request and decodes its result into result (a pointer; nil
// drops it). When ctx ends first, the request is cancelled
// ($/cancelRequest) and ctx's error returned. A server's error answer is a
// *ResponseError; a server that ends first fails the call with Err's error.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	return c.conn.call(ctx, method, params, result)
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) error {
	return c.conn.notify(method, params)
}

// Close shuts the server down: the shutdown request, bounded by ctx and
// Grace, then the exit notification and the end of its input; a server
// still running Grace later, or when ctx ends, is killed with its process
// group. Close returns once the process is reaped and every goroutine of
// the client has ended, with the shutdown request's error if it failed
// (nil if the server had already ended). It may be called more than once.
func (c *Client) Close(ctx context.Context) error {
	first := false
	c.closeOnce.Do(func() { first = true; close(c.closing) })
	if !first {
		<-c.done
		return nil
	}
	var err error
	select {
	case <-c.exited:
	default:
		sctx, cancel := context.WithTimeout(ctx, c.cfg.Grace)
		err = c.conn.call(sctx, "shutdown", nil, nil)
		cancel()
		if err == nil {
			_ = c.conn.notify("exit", nil)
		}
		c.stdin.Close()
		timer := time.NewTimer(c.cfg.Grace)
		select {
		case <-c.exited:
		case <-timer.C:
		case <-ctx.Done():
		}
		timer.Stop()
		_ = c.cmd.Process.Kill()
	}
	<-c.done
	if err != nil {
		return fmt.Errorf("lsp: shutting %s down: %w", c.name, err)
	}
	return nil
}

// serverRequest answers the requests servers send clients in practice;
// any other is answered MethodNotFound.
func (c *Client) serverRequest(method string, params json.RawMessage) (any, error) {
	switch method {
	case "workspace/configuration":
		var p struct {
			Items []struct {
				ScopeURI string `json:"scopeUri"`
				Section  string `json:"section"`
			} `json:"items"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &ResponseError{Code: CodeInvalidParams, Message: err.Error()}
		}
		out := make([]any, len(p.Items))
		if c.cfg.Settings != nil {
			for i, it := range p.Items {
				out[i] = c.cfg.Settings(it.Section, it.ScopeURI)
			}
		}
		return out, nil
	case "workspace/workspaceFolders":
		folders := make([]map[string]string, 0, len(c.cfg.Folders))
		for _, f := range c.cfg.Folders {
			folders = append(folders, map[string]string{"uri": URIFromPath(f), "name": filepath.Base(f)})
		}
		return folders, nil
	case "workspace/diagnostic/refresh", "workspace/semanticTokens/refresh", "workspace/inlayHint/refresh",
		"workspace/codeLens/refresh", "workspace/inlineValue/refresh", "workspace/foldingRange/refresh":
		// The client asks afresh at each request; nothing to refresh.
		// (Pyright exits when this goes unanswered.)
		return nil, nil
	case "window/workDoneProgress/create":
		return nil, nil // tokens are tracked as $/progress uses them
	case "client/registerCapability", "client/unregisterCapability":
		// Registrations are recorded (Registered), for the one feature
		// offered dynamically: pull diagnostics. Others (file watching,
		// say) get a success and nothing more, as the protocol allows.
		var p struct {
			Registrations []struct {
				ID     string `json:"id"`
				Method string `json:"method"`
			} `json:"registrations"`
			Unregistrations []struct {
				ID string `json:"id"`
			} `json:"unregisterations"` // sic, in the protocol
		}
		if json.Unmarshal(params, &p) == nil {
			c.mu.Lock()
			if c.registered == nil {
				c.registered = map[string]string{}
			}
			for _, r := range p.Registrations {
				c.registered[r.ID] = r.Method
			}
			for _, u := range p.Unregistrations {
				delete(c.registered, u.ID)
			}
			c.mu.Unlock()
		}
		return nil, nil
	case "window/showMessageRequest":
		var p struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(params, &p) == nil {
			c.message(p.Type, p.Message)
		}
		return nil, nil // no action chosen
	case "workspace/applyEdit":
		// Not offered: edits are the caller's to apply.
		return map[string]any{"applied": false, "failureReason": "this client does not apply edits"}, nil
	}
	return nil, &ResponseError{Code: CodeMethodNotFound, Message: "method not found: " + method}
}

// serverNotification records progress and diagnostics and passes them, and
// the server's messages, to the callbacks.
func (c *Client) serverNotification(method string, params json.RawMessage) {
	switch method {
	case "$/progress":
		var p struct {
			Token json.RawMessage `json:"token"`
			Value struct {
				Kind        string `json:"kind"`
				Title       string `json:"title"`
				Message     string `json:"message"`
				Percentage  *int   `json:"percentage"`
				Cancellable bool   `json:"cancellable"`
			} `json:"value"`
		}
		if json.Unmarshal(params, &p) != nil || p.Value.Kind == "" {
			return // not work done progress (partial results are not asked for)
		}
		v := p.Value
		pr := Progress{Token: string(p.Token), Kind: v.Kind, Title: v.Title, Message: v.Message, Percentage: v.Percentage, Cancellable: v.Cancellable}
		c.mu.Lock()
		switch v.Kind {
		case "begin":
			c.progress[pr.Token] = pr
		case "report":
			if b, ok := c.progress[pr.Token]; ok {
				pr.Title = b.Title
				c.progress[pr.Token] = pr
			}
		case "end":
			pr.Title = c.progress[pr.Token].Title
			delete(c.progress, pr.Token)
		}
		c.mu.Unlock()
		if f := c.cfg.OnProgress; f != nil {
			c.events.push(func() { f(pr) })
		}
	case "textDocument/publishDiagnostics":
		var p struct {
			URI         string       `json:"uri"`
			Version     *int32       `json:"version"`
			Diagnostics []Diagnostic `json:"diagnostics"`
		}
		if json.Unmarshal(params, &p) != nil {
			return
		}
		key := uriKey(p.URI)
		c.mu.Lock()
		d := c.diagStateLocked(key)
		d.last = FileDiagnostics{URI: p.URI, Version: p.Version, Diagnostics: p.Diagnostics, Seq: d.last.Seq + 1}
		fd := d.last
		if d.next != nil {
			close(d.next)
			d.next = make(chan struct{})
		}
		c.mu.Unlock()
		if f := c.cfg.OnDiagnostics; f != nil {
			c.events.push(func() { f(fd) })
		}
	case "window/logMessage", "window/showMessage":
		var p struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(params, &p) == nil {
			c.message(p.Type, p.Message)
		}
	}
}

func (c *Client) message(typ int, text string) {
	if f := c.cfg.OnMessage; f != nil {
		c.events.push(func() { f(typ, text) })
	}
}

// InProgress lists the work the server has begun and not yet ended, by
// token.
func (c *Client) InProgress() []Progress {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Progress, 0, len(c.progress))
	for _, p := range c.progress {
		out = append(out, p)
	}
	return out
}

func (c *Client) diagStateLocked(key string) *diagState {
	d := c.diags[key]
	if d == nil {
		d = &diagState{}
		if !c.ended {
			d.next = make(chan struct{})
		}
		c.diags[key] = d
	}
	return d
}

// diagSeq is a document's publication count so far.
func (c *Client) diagSeq(key string) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := c.diags[key]; d != nil {
		return d.last.Seq
	}
	return 0
}

func (c *Client) doc(key string) (document, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.docs[key]
	return d, ok
}

// setDoc records an open document; the zero document closes it.
func (c *Client) setDoc(key string, d document) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d.uri == "" {
		delete(c.docs, key)
	} else {
		c.docs[key] = d
	}
}

// Version is an open document's version; false when it is not open.
func (c *Client) Version(uri string) (int32, bool) {
	d, ok := c.doc(uriKey(uri))
	return d.version, ok
}

// Diagnostics are the latest diagnostics published for uri; false when
// none have been.
func (c *Client) Diagnostics(uri string) (FileDiagnostics, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.diags[uriKey(uri)]
	if d == nil || d.last.Seq == 0 {
		return FileDiagnostics{}, false
	}
	return d.last, true
}

// AwaitDiagnostics waits until the diagnostics of uri are current and ready
// holds for them (nil: always), and returns them. For an open document,
// current means published for its present version (DidOpen's or the last
// DidChange's) or later; from a server that names no version, published
// after that version was sent. For a document not open, any publication is
// current. Some servers publish in steps (syntax, then types); ready lets
// the caller wait for the step it needs. It returns early with ctx's error,
// or with Err's when the server ends.
func (c *Client) AwaitDiagnostics(ctx context.Context, uri string, ready func(FileDiagnostics) bool) (FileDiagnostics, error) {
	key := uriKey(uri)
	for {
		c.mu.Lock()
		d := c.diagStateLocked(key)
		last, next := d.last, d.next
		doc, open := c.docs[key]
		c.mu.Unlock()
		current := last.Seq > 0
		if open {
			if last.Version != nil {
				current = *last.Version >= doc.version
			} else {
				current = last.Seq > doc.sentSeq
			}
		}
		if current && (ready == nil || ready(last)) {
			return last, nil
		}
		if next == nil {
			return FileDiagnostics{}, c.err
		}
		select {
		case <-next:
		case <-ctx.Done():
			return FileDiagnostics{}, ctx.Err()
		}
	}
}

// queue runs functions one at a time, in order, on a goroutine of its own,
// never blocking who pushes them.
type queue struct {
	mu      sync.Mutex
	fns     []func()
	wake    chan struct{}
	stopped bool
	done    chan struct{}
}

func newQueue() *queue {
	q := &queue{wake: make(chan struct{}, 1), done: make(chan struct{})}
	go q.run()
	return q
}

func (q *queue) push(fn func()) {
	q.mu.Lock()
	q.fns = append(q.fns, fn)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// stop makes the queue end once it has run what was pushed, and waits for
// that.
func (q *queue) stop() {
	q.mu.Lock()
	q.stopped = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	<-q.done
}

func (q *queue) run() {
	defer close(q.done)
	for {
		q.mu.Lock()
		fns, stopped := q.fns, q.stopped
		q.fns = nil
		q.mu.Unlock()
		for _, fn := range fns {
			fn()
		}
		if len(fns) == 0 {
			if stopped {
				return
			}
			<-q.wake
		}
	}
}

// tail is a writer keeping the last bytes written to it (and passing them
// on to w, when set).
type tail struct {
	w   io.Writer
	mu  sync.Mutex
	buf []byte
}

const tailSize = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
	}
	t.mu.Unlock()
	if t.w != nil {
		_, _ = t.w.Write(p) // a failing log does not stop the server
	}
	return len(p), nil
}

// String is the last lines kept, the first of them whole.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	if len(t.buf) == tailSize {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	return strings.TrimRight(s, "\n")
}
