package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

func TestCheckFrame(t *testing.T) {
	t.Parallel()
	deep := func(n int) string {
		return `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}`
	}
	const pass, drop = 0, 1
	for name, tc := range map[string]struct {
		line string
		code int64  // pass, drop, or the error code of the reply
		id   string // the reply's id, raw
	}{
		"request":                 {line: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, code: pass},
		"string id":               {line: `{"jsonrpc":"2.0","id":"a-1","method":"ping"}`, code: pass},
		"notification":            {line: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, code: pass},
		"response":                {line: `{"jsonrpc":"2.0","id":3,"result":{}}`, code: pass},
		"CRLF and spaces":         {line: "  {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r", code: pass},
		"largest exact integer":   {line: `{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}`, code: pass},
		"blank":                   {line: "   ", code: drop},
		"not JSON":                {line: `hello`, code: jsonrpc.CodeParseError, id: "null"},
		"truncated":               {line: `{"jsonrpc":"2.0","id":1,`, code: jsonrpc.CodeParseError, id: "null"},
		"NUL bytes":               {line: "{\"jsonrpc\":\"2.0\",\x00\"id\":1}", code: jsonrpc.CodeParseError, id: "null"},
		"NUL in a string":         {line: "{\"jsonrpc\":\"2.0\",\"id\":\"a\x00\",\"method\":\"ping\"}", code: jsonrpc.CodeParseError, id: "null"},
		"batch":                   {line: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		"empty batch":             {line: `[]`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		"a number":                {line: `42`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		"object id":               {line: `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		"bool id":                 {line: `{"jsonrpc":"2.0","id":true,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		"null id":                 {line: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		"fractional id":           {line: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		"exponent id":             {line: `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		"id over 53 bits":         {line: `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		"minus zero id":           {line: `{"jsonrpc":"2.0","id":-0,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		"lone surrogate id":       {line: `{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		"duplicate id":            {line: `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		"duplicate method":        {line: `{"jsonrpc":"2.0","id":1,"method":"ping","method":"x"}`, code: jsonrpc.CodeInvalidRequest, id: "1"},
		"wrong version":           {line: `{"jsonrpc":"1.0","id":"k","method":"ping"}`, code: jsonrpc.CodeInvalidRequest, id: `"k"`},
		"no version":              {line: `{"id":5,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, id: "5"},
		"method not a string":     {line: `{"jsonrpc":"2.0","id":5,"method":5}`, code: jsonrpc.CodeInvalidRequest, id: "5"},
		"ID is not id":            {line: `{"jsonrpc":"2.0","ID":5,"method":"ping"}`, code: pass},
		"nesting 256":             {line: deep(MaxFrameDepth - 2), code: pass},
		"nesting 999":             {line: deep(999), code: jsonrpc.CodeInvalidRequest, id: "7"},
		"nesting 100000":          {line: deep(100000), code: jsonrpc.CodeParseError, id: "null"},
		"response without result": {line: `{"jsonrpc":"2.0","id":"x"}`, code: pass},
		"response with a bad id":  {line: `{"jsonrpc":"2.0","id":[1],"result":{}}`, code: drop},
		"neither method nor id":   {line: `{"jsonrpc":"2.0"}`, code: drop},
		"empty object":            {line: `{}`, code: drop},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := checkFrame([]byte(tc.line))
			switch {
			case tc.code == pass:
				if v.msg == nil || v.reply != nil {
					t.Fatalf("verdict = %+v (%s), want the message passed on", v, v.reply)
				}
			case tc.code == drop:
				if v.msg != nil || v.reply != nil {
					t.Fatalf("verdict = %+v (%s), want it dropped", v, v.reply)
				}
			default:
				if v.msg != nil || v.reply == nil {
					t.Fatalf("verdict = %+v, want a reply", v)
				}
				var r struct {
					ID    json.RawMessage `json:"id"`
					Error jsonrpc.Error   `json:"error"`
				}
				if err := json.Unmarshal(v.reply, &r); err != nil {
					t.Fatal(err)
				}
				if r.Error.Code != tc.code || string(r.ID) != tc.id {
					t.Errorf("reply = %s, want code %d and id %s", v.reply, tc.code, tc.id)
				}
			}
		})
	}
}

func TestFrameReaderDropsOversizedLines(t *testing.T) {
	t.Parallel()
	const max = 100
	in := "short\n" + strings.Repeat("x", max) + "\n" + strings.Repeat("y", max+1) + "\n" +
		strings.Repeat("z", 5*max) + "\r\nafter\nlast"
	fr := newFrameReader(strings.NewReader(in), max)
	fr.br = bufio.NewReaderSize(strings.NewReader(in), 16) // make lines span many reads
	var got []string
	for {
		line, over, err := fr.next()
		switch {
		case over:
			got = append(got, "<oversize>")
		case len(line) > 0:
			got = append(got, string(line))
		}
		if err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
	}
	want := []string{"short", strings.Repeat("x", max), "<oversize>", "<oversize>", "after", "last"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("frames = %q, want %q", got, want)
	}
}

// TestStdioSessionSurvivesMalformedFrames drives a real MCP server over
// StdioTransport: after each bad frame comes its error (when it deserves
// one), and a tools/list is still answered, with the request's id echoed
// exactly.
func TestStdioSessionSurvivesMalformedFrames(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "noop"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- s.Run(ctx, &StdioTransport{In: inR, Out: outW, Logger: slog.New(slog.DiscardHandler)})
	}()
	t.Cleanup(func() {
		cancel()
		_ = inW.Close()
		_ = outR.Close()
		select {
		case <-done:
		case <-time.After(proctest.Patience):
			t.Error("server did not stop")
		}
	})
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() map[string]json.RawMessage {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("server closed stdout")
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("reply %q: %v", l, err)
			}
			return m
		case <-time.After(proctest.Patience):
			t.Fatal("no reply")
			return nil
		}
	}
	send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if r := recv(); string(r["id"]) != `"init"` || r["result"] == nil {
		t.Fatalf("initialize reply = %v", r)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	bad := []struct{ frame, id string }{
		{"not json", "null"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "null"},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, "null"},
		{"{\x00}", "null"},
		{`{"jsonrpc":"2.0","id":"d","method":"ping","params":` + strings.Repeat("[", 999) + strings.Repeat("]", 999) + `}`, `"d"`},
		{`{"jsonrpc":"2.0","id":12,"method":"ping","params":"` + strings.Repeat("a", MaxFrame) + `"}`, "null"},
		{`{"jsonrpc":"1.0","id":"v","method":"ping"}`, `"v"`},
	}
	for i, b := range bad {
		send(b.frame)
		r := recv()
		if string(r["id"]) != b.id || r["error"] == nil {
			t.Errorf("frame %d: reply id %s error %s, want id %s and an error", i, r["id"], r["error"], b.id)
		}
		id := fmt.Sprint(100 + i)
		if i%2 == 1 {
			id = fmt.Sprintf(`"s-%d"`, i)
		}
		send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`)
		if r := recv(); string(r["id"]) != id || !bytes.Contains(r["result"], []byte(`"noop"`)) {
			t.Fatalf("after frame %d, tools/list reply = %v, want id %s and the tool", i, r, id)
		}
	}
}

// FuzzStdioFrame: no line makes checkFrame panic, and every line is passed
// on, dropped, or answered with one well-formed JSON-RPC error line whose
// id is the request's own when it has a valid one, null otherwise. A
// message passed on keeps its id exactly.
func FuzzStdioFrame(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"view_file","arguments":{"path":"a"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`,
		"{\"jsonrpc\":\"2.0\",\x00\"id\":1}",
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a\"b","method":"p\u0069ng","params":null}`,
		`{"params":{"x": [1, 2]},"method":"tools/call","id":-9007199254740991,"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"a":1},"params":{"b":2}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","error":5}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","error":{"code":1,"message":"m"},"result":{}}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping","params":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`,
		`not json`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		v := checkFrame(line)
		if v.msg != nil && v.reply != nil {
			t.Fatalf("both passed on and answered: %s", v.reply)
		}
		inputID, idOK := validInputID(line)
		if v.reply != nil {
			if bytes.ContainsAny(v.reply, "\r\n") {
				t.Fatalf("reply spans lines: %q", v.reply)
			}
			var r struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *jsonrpc.Error  `json:"error"`
			}
			if err := json.Unmarshal(v.reply, &r); err != nil || r.JSONRPC != "2.0" || r.Error == nil ||
				(r.Error.Code != jsonrpc.CodeParseError && r.Error.Code != jsonrpc.CodeInvalidRequest) {
				t.Fatalf("malformed reply %s (%v)", v.reply, err)
			}
			want := "null"
			if idOK {
				want = string(inputID)
			}
			if string(r.ID) != want {
				t.Fatalf("reply id %s, want %s, for %q", r.ID, want, line)
			}
		}
		if req, ok := v.msg.(*jsonrpc.Request); ok {
			// Built from the envelope: what the SDK's decoder builds.
			sdk, err := jsonrpc.DecodeMessage(bytes.TrimSpace(line))
			want, _ := sdk.(*jsonrpc.Request)
			if err != nil || want == nil || req.ID != want.ID || req.Method != want.Method || !bytes.Equal(req.Params, want.Params) {
				t.Fatalf("%q: passed on as %#v, the SDK decodes %#v (%v)", line, req, sdk, err)
			}
		}
		if v.msg != nil {
			var id jsonrpc.ID
			switch m := v.msg.(type) {
			case *jsonrpc.Request:
				id = m.ID
			case *jsonrpc.Response:
				id = m.ID
			}
			if !id.IsValid() {
				if inputID != nil {
					t.Fatalf("id %s lost", inputID)
				}
				return
			}
			enc, err := jsonrpc.EncodeMessage(v.msg)
			if err != nil {
				t.Fatal(err)
			}
			var out struct{ ID json.RawMessage }
			_ = json.Unmarshal(enc, &out)
			if !sameJSON(out.ID, inputID) {
				t.Fatalf("id %s comes back as %s", inputID, out.ID)
			}
		}
	})
}

// validInputID is the raw id of a frame that is a JSON object with one
// "id" member that checkID accepts.
func validInputID(line []byte) (json.RawMessage, bool) {
	line = bytes.TrimSpace(line)
	if !json.Valid(line) || len(line) == 0 || line[0] != '{' {
		return nil, false
	}
	env, err := readEnvelopeByDecoder(line)
	if err != nil || env.dupID {
		return nil, false
	}
	id, err := checkID(env.id)
	return id, err == nil && id != nil
}

func sameJSON(a, b []byte) bool {
	dec := func(b []byte) any {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var v any
		if d.Decode(&v) != nil {
			return nil
		}
		return v
	}
	return fmt.Sprint(dec(a)) == fmt.Sprint(dec(b)) && fmt.Sprintf("%T", dec(a)) == fmt.Sprintf("%T", dec(b))
}

// FuzzReadEnvelope holds readEnvelope's one pass to encoding/json's
// decoder reading the same object member by member, and to a count of
// the nesting: the same members, duplicates and depth for every valid
// JSON object.
func FuzzReadEnvelope(f *testing.F) {
	for _, s := range []string{
		`{}`,
		` { "jsonrpc" : "2.0" , "id" : 1 , "method" : "ping" } `,
		`{"jsonrpc":"2.0","id":"a\"b,}","method":"p\u0069ng","params":{"a":[1,{"b":"]}"}]}}`,
		`{"\u0069d":1,"id":2,"par\u0061ms":null,"params":[],"error":5,"method":"a","method":"b"}`,
		`{"x":{"y":{"z":[[[]]]}},"id":-0,"jsonrpc":"2.0\\"}`,
		`{"id":true,"id":false,"jsonrpc":null,"method":1e5,"params":"\\"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		line = bytes.TrimSpace(line)
		if !json.Valid(line) || len(line) == 0 || line[0] != '{' {
			return
		}
		got, err := readEnvelope(line)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		want, err := readEnvelopeByDecoder(line)
		if err != nil {
			t.Fatalf("%q: the decoder: %v", line, err)
		}
		want.depth = depthOf(line)
		same := func(a, b json.RawMessage) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }
		if !same(got.version, want.version) || !same(got.id, want.id) || !same(got.method, want.method) || !same(got.params, want.params) ||
			got.dupID != want.dupID || got.dup != want.dup || got.dupParams != want.dupParams || got.hasError != want.hasError || got.depth != want.depth {
			t.Fatalf("%q:\nread    %+v\ndecoder %+v", line, got, want)
		}
	})
}

// readEnvelopeByDecoder is readEnvelope written with encoding/json's
// decoder, token by token: the oracle the one pass is held to (how each
// member is kept, envelope.keep, is the same).
func readEnvelopeByDecoder(line []byte) (envelope, error) {
	var env envelope
	dec := json.NewDecoder(bytes.NewReader(line))
	if _, err := dec.Token(); err != nil { // {
		return env, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return env, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return env, err
		}
		env.keep(key, raw)
	}
	return env, nil
}

// depthOf is the deepest nesting of objects and arrays in valid JSON,
// counted by decoding it.
func depthOf(data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	depth, deepest := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return deepest
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			deepest = max(deepest, depth)
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// BenchmarkCheckFrame: what reading a request costs the server before the
// SDK sees it, for a call as the go-sdk client frames it (the _meta triple
// of 2026-07-28) and as the TypeScript client does.
func BenchmarkCheckFrame(b *testing.B) {
	for _, c := range []struct{ name, frame string }{
		{"go-sdk", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"drv","version":"0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":3},"name":"echo","arguments":{"text":"hello"}}}`},
		{"typescript", `{"method":"tools/call","params":{"name":"view_file","arguments":{"path":"small.py"}},"jsonrpc":"2.0","id":7}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if v := checkFrame([]byte(c.frame)); v.msg == nil {
					b.Fatalf("refused: %s", v.reply)
				}
			}
		})
	}
}
