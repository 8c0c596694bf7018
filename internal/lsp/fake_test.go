package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// The fake server: this test binary run with fakeEnv set speaks LSP on its
// stdin and stdout, with its own framing loop (not the client's conn), so
// that the client's mechanics are tested against an independent peer. Its
// test/... methods let a test drive it; fakeOpts in the environment
// change its manners.
const (
	fakeEnv  = "LSP_FAKE_SERVER"
	fakeOpts = "LSP_FAKE_OPTS" // comma-separated: utf8, noversion, stubborn, failinit
)

// fake is the fake server's state.
type fake struct {
	opts map[string]bool
	in   *bufio.Reader

	wmu sync.Mutex

	mu        sync.Mutex
	nextID    int
	waiting   map[string]chan json.RawMessage // our calls to the client, by id
	hanging   map[string]chan struct{}        // test/hang requests, by id
	cancelled []string                        // ids $/cancelRequest named
	canned    map[string]json.RawMessage      // results set by test/set
	params    map[string]json.RawMessage      // the last params of each method
	shutdown  bool
}

type fakeMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *ResponseError  `json:"error,omitempty"`
}

func runFake() {
	if os.Getenv(fakeEnv) == "sleep" { // a child the fake started
		time.Sleep(time.Hour)
		return
	}
	f := &fake{
		opts:    map[string]bool{},
		in:      bufio.NewReader(os.Stdin),
		waiting: map[string]chan json.RawMessage{},
		hanging: map[string]chan struct{}{},
		canned:  map[string]json.RawMessage{},
		params:  map[string]json.RawMessage{},
	}
	for _, o := range strings.Split(os.Getenv(fakeOpts), ",") {
		f.opts[o] = true
	}
	for {
		body, err := readFrame(f.in, 1<<30)
		if err != nil {
			os.Exit(2)
		}
		var m fakeMsg
		if err := json.Unmarshal(body, &m); err != nil {
			os.Exit(2)
		}
		if m.Method == "" {
			f.mu.Lock()
			ch := f.waiting[string(m.ID)]
			f.mu.Unlock()
			if ch != nil {
				ch <- body
			}
			continue
		}
		f.mu.Lock()
		f.params[m.Method] = m.Params
		f.mu.Unlock()
		if m.ID == nil {
			if m.Method == "test/deaf" { // reads nothing more
				time.Sleep(time.Hour)
			}
			if m.Method == "test/endInput" { // reads nothing more, and exits a moment later
				os.Stdin.Close()
				time.Sleep(300 * time.Millisecond)
				os.Exit(4)
			}
			f.notification(m)
			continue
		}
		f.mu.Lock()
		if m.Method == "test/hang" {
			f.hanging[string(m.ID)] = make(chan struct{})
		}
		f.mu.Unlock()
		go f.request(m)
	}
}

func (f *fake) send(m any) {
	body, _ := json.Marshal(m)
	f.wmu.Lock()
	defer f.wmu.Unlock()
	_ = writeFrame(os.Stdout, body)
}

func (f *fake) raw(s string) {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	_, _ = os.Stdout.WriteString(s)
}

func (f *fake) notify(method string, params any) {
	f.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// call sends the client a request and returns its whole response.
func (f *fake) call(method string, params any) json.RawMessage {
	f.mu.Lock()
	f.nextID++
	id := fmt.Sprintf(`"s%d"`, f.nextID) // string ids, as some servers use
	ch := make(chan json.RawMessage, 1)
	f.waiting[id] = ch
	f.mu.Unlock()
	f.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params})
	return <-ch
}

func (f *fake) notification(m fakeMsg) {
	switch m.Method {
	case "exit":
		f.mu.Lock()
		code := 1
		if f.shutdown {
			code = 0
		}
		f.mu.Unlock()
		if !f.opts["stubborn"] {
			os.Exit(code)
		}
	case "$/cancelRequest":
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(m.Params, &p)
		f.mu.Lock()
		f.cancelled = append(f.cancelled, string(p.ID))
		if ch := f.hanging[string(p.ID)]; ch != nil {
			close(ch)
			delete(f.hanging, string(p.ID))
		}
		f.mu.Unlock()
	case "textDocument/didOpen", "textDocument/didChange":
		var p struct {
			TextDocument struct {
				URI     string `json:"uri"`
				Version int32  `json:"version"`
				Text    string `json:"text"`
			} `json:"textDocument"`
			ContentChanges []struct {
				Text string `json:"text"`
			} `json:"contentChanges"`
		}
		_ = json.Unmarshal(m.Params, &p)
		text := p.TextDocument.Text
		if len(p.ContentChanges) > 0 {
			text = p.ContentChanges[0].Text
		}
		// Publish later, as servers do after analysis: a client that
		// took an earlier publication for this one would be caught.
		go func() {
			time.Sleep(50 * time.Millisecond)
			t := NewText([]byte(text))
			diags := []Diagnostic{}
			for off := 0; ; {
				i := strings.Index(text[off:], "ERROR")
				if i < 0 {
					break
				}
				r, _ := t.Range(off+i, off+i+5, UTF16)
				diags = append(diags, Diagnostic{Range: r, Severity: SeverityError, Code: "E1", Source: "fake", Message: "an error"})
				off += i + 5
			}
			params := map[string]any{"uri": p.TextDocument.URI, "diagnostics": diags}
			if !f.opts["noversion"] {
				params["version"] = p.TextDocument.Version
			}
			f.notify("textDocument/publishDiagnostics", params)
		}()
	}
}

func (f *fake) request(m fakeMsg) {
	result, rerr := f.answer(m)
	resp := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	if rerr != nil {
		resp["error"] = rerr
	} else {
		resp["result"] = result
	}
	f.send(resp)
}

func (f *fake) answer(m fakeMsg) (any, *ResponseError) {
	switch m.Method {
	case "initialize":
		if f.opts["failinit"] {
			return nil, &ResponseError{Code: CodeInternalError, Message: "cannot start"}
		}
		caps := map[string]any{"referencesProvider": true}
		if f.opts["utf8"] {
			caps["positionEncoding"] = "utf-8"
		}
		return map[string]any{"capabilities": caps}, nil
	case "shutdown":
		if f.opts["stubborn"] {
			select {} // never answers
		}
		f.mu.Lock()
		f.shutdown = true
		f.mu.Unlock()
		return nil, nil
	case "test/echo":
		var p struct {
			Value string `json:"value"`
			Delay int    `json:"delayMs"`
		}
		_ = json.Unmarshal(m.Params, &p)
		time.Sleep(time.Duration(p.Delay) * time.Millisecond)
		return p.Value, nil
	case "test/hang":
		f.mu.Lock()
		ch := f.hanging[string(m.ID)]
		f.mu.Unlock()
		<-ch
		return nil, &ResponseError{Code: CodeRequestCancelled, Message: "cancelled"}
	case "test/cancelled":
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.cancelled, nil
	case "test/crash":
		fmt.Fprintln(os.Stderr, "fake: something went badly wrong")
		os.Exit(3)
	case "test/closeStdout":
		os.Stdout.Close()
		time.Sleep(time.Hour)
	case "test/big":
		f.raw("Content-Length: 2000000\r\n\r\n{")
		time.Sleep(time.Hour)
	case "test/garbage":
		// A body that is not JSON, and a response to a call never made:
		// both dropped, and the connection goes on.
		f.raw("Content-Length: 5\r\n\r\nhello")
		f.send(map[string]any{"jsonrpc": "2.0", "id": 999999, "result": "stray"})
		f.send(map[string]any{"jsonrpc": "2.0", "id": "a-string", "result": "stray"})
		return "after garbage", nil
	case "test/child":
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), fakeEnv+"=sleep")
		if err := cmd.Start(); err != nil {
			return nil, &ResponseError{Code: CodeInternalError, Message: err.Error()}
		}
		return cmd.Process.Pid, nil
	case "test/ask":
		out := map[string]json.RawMessage{}
		for _, q := range []struct {
			name, method string
			params       any
		}{
			{"configuration", "workspace/configuration", map[string]any{"items": []map[string]string{
				{"section": "fake"}, {"section": "other", "scopeUri": "file:///x"}}}},
			{"register", "client/registerCapability", map[string]any{"registrations": []map[string]string{
				{"id": "1", "method": "workspace/didChangeWatchedFiles"}}}},
			{"create", "window/workDoneProgress/create", map[string]any{"token": "t1"}},
			{"folders", "workspace/workspaceFolders", nil},
			{"applyEdit", "workspace/applyEdit", map[string]any{"edit": map[string]any{}}},
			{"unknown", "custom/unknown", map[string]any{}},
		} {
			out[q.name] = f.call(q.method, q.params)
		}
		return out, nil
	case "test/progress":
		f.call("window/workDoneProgress/create", map[string]any{"token": 7})
		pct := 50
		f.notify("$/progress", map[string]any{"token": 7, "value": map[string]any{"kind": "begin", "title": "Indexing", "cancellable": true}})
		f.notify("$/progress", map[string]any{"token": 7, "value": map[string]any{"kind": "report", "message": "half", "percentage": pct}})
		f.notify("$/progress", map[string]any{"token": "other", "value": map[string]any{"kind": "begin", "title": "Other"}})
		f.notify("$/progress", map[string]any{"token": 7, "value": map[string]any{"kind": "end", "message": "done"}})
		f.notify("$/progress", map[string]any{"token": "partial", "value": []int{1, 2}}) // a partial result: ignored
		f.notify("window/logMessage", map[string]any{"type": 3, "message": "hello from fake"})
		return nil, nil
	case "test/set":
		var p struct {
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		_ = json.Unmarshal(m.Params, &p)
		f.mu.Lock()
		f.canned[p.Method] = p.Result
		f.mu.Unlock()
		return nil, nil
	case "test/params":
		var method string
		_ = json.Unmarshal(m.Params, &method)
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.params[method], nil
	}
	f.mu.Lock()
	r, ok := f.canned[m.Method]
	f.mu.Unlock()
	if ok {
		return r, nil
	}
	return nil, &ResponseError{Code: CodeMethodNotFound, Message: "fake: no " + m.Method}
}
