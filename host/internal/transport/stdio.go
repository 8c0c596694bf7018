package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/pollpipe"
)

// MaxFrame is the largest stdio frame (one line of newline-delimited
// JSON) the server reads; the rest of a longer line is read and dropped.
const MaxFrame = 16 << 20

// MaxFrameDepth is how deeply a frame's objects and arrays may nest. MCP
// messages nest a handful of levels; the SDK's decoder gives up at 1000.
const MaxFrameDepth = 256

// StdioTransport is an [mcp.Transport] over newline-delimited JSON that
// survives a bad client: the SDK's own stdio transport ends the session at
// the first line that is not a JSON-RPC message. Every line is checked
// before the SDK sees it (see checkFrame): a malformed or oversized one is
// answered with the JSON-RPC error it deserves (-32700 parse error or
// -32600 invalid request, with the request's id when it has a valid one,
// null otherwise) or, when it is a response, logged and dropped; the
// session goes on. The id of a request that passes is one the SDK echoes
// exactly: a string or an integer of at most 53 bits.
type StdioTransport struct {
	// In and Out default to os.Stdin and os.Stdout; a stdin pipe or
	// socket is read through the runtime's poller (package pollpipe), so
	// a wait for the client's next message leaves the CPU to the
	// goroutines serving the last, from a start's first messages on.
	In  io.Reader
	Out io.Writer
	// Logger receives a line for every frame dropped or answered here;
	// nil means slog.Default.
	Logger *slog.Logger
	// Terminal, when set, gets the line instead of Logger, in plain
	// words: In is a terminal and a person is typing, who needs to learn
	// what the server expects more than a malformed-frame warning. The
	// JSON-RPC error still goes to Out.
	Terminal io.Writer
}

var _ mcp.Transport = (*StdioTransport)(nil)

// Connect implements [mcp.Transport]. It starts the reading goroutine,
// which ends at EOF, at a read error or when the connection closes.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{
		in: t.In, out: t.Out, logger: t.Logger, terminal: t.Terminal,
		incoming: make(chan jsonrpc.Message),
		closed:   make(chan struct{}),
		readDone: make(chan struct{}),
	}
	if c.in == nil {
		c.in = pollpipe.Open(os.Stdin)
	}
	if c.out == nil {
		c.out = os.Stdout
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	go c.readLoop()
	return c, nil
}

type stdioConn struct {
	in       io.Reader
	out      io.Writer
	logger   *slog.Logger
	terminal io.Writer

	writeMu sync.Mutex

	incoming chan jsonrpc.Message
	readDone chan struct{} // closed when readLoop ends; readErr is then set
	readErr  error

	closeOnce sync.Once
	closed    chan struct{}
}

func (c *stdioConn) SessionID() string { return "" }

// Read returns the next message that passed checkFrame.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case msg := <-c.incoming:
		return msg, nil
	case <-c.readDone:
		return nil, c.readErr
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write writes msg as one line.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := encodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	return c.writeLine(data)
}

func (c *stdioConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.closed:
		return mcp.ErrConnectionClosed
	default:
	}
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// Close stops delivering messages and closes the input when it can be
// closed (os.Stdin), which ends a blocked read.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		if cl, ok := c.in.(io.Closer); ok {
			_ = cl.Close()
		}
	})
	return nil
}

func (c *stdioConn) readLoop() {
	fr := newFrameReader(c.in, MaxFrame)
	var err error
	for {
		var frame []byte
		var over bool
		frame, over, err = fr.next()
		if len(frame) > 0 || over {
			if !c.handle(frame, over) {
				return
			}
		}
		if err != nil {
			break
		}
	}
	if errors.Is(err, io.EOF) {
		err = io.EOF
	}
	c.readErr = err
	close(c.readDone)
}

// handle passes one frame on or answers it; it reports false when the
// connection is closed.
func (c *stdioConn) handle(frame []byte, oversize bool) bool {
	var v frameVerdict
	if oversize {
		v = frameVerdict{reply: errorReply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: frame over %d bytes", MaxFrame)), why: "frame too large"}
	} else {
		v = checkFrame(bytes.Clone(frame)) // the message may keep parts of it; the buffer is reused
	}
	switch {
	case v.why != "" && c.terminal != nil:
		fmt.Fprintf(c.terminal, "not a JSON-RPC message (%s): an MCP server reads one JSON-RPC message a line, from its client; Ctrl-D quits\n", v.why)
	case v.why != "":
		c.logger.Warn("malformed stdio frame", "why", v.why, "bytes", len(frame), "start", preview(frame), "answered", v.reply != nil)
	}
	if v.reply != nil {
		if err := c.writeLine(v.reply); err != nil {
			return !errors.Is(err, mcp.ErrConnectionClosed)
		}
	}
	if v.msg == nil {
		return true
	}
	select {
	case c.incoming <- v.msg:
		return true
	case <-c.closed:
		return false
	}
}

func preview(b []byte) string {
	const n = 80
	if len(b) > n {
		return fmt.Sprintf("%q…", b[:n])
	}
	return fmt.Sprintf("%q", b)
}

// frameReader splits a stream into lines of at most max bytes.
type frameReader struct {
	br  *bufio.Reader
	max int
	buf []byte
}

func newFrameReader(r io.Reader, max int) *frameReader {
	return &frameReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its line ending. A line longer than
// max is read to its end and dropped: next returns (nil, true, err). err is
// the read error that ended the stream (io.EOF at its end), returned with
// the last line when the stream does not end in a newline.
func (r *frameReader) next() (line []byte, oversize bool, err error) {
	r.buf = r.buf[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		if !oversize {
			if len(r.buf)+len(chunk) > r.max+2 { // +2: the line ending is not counted
				oversize, r.buf = true, r.buf[:0]
			} else {
				r.buf = append(r.buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if oversize {
			return nil, true, err
		}
		line = bytes.TrimRight(r.buf, "\r\n")
		if len(line) > r.max {
			return nil, true, err
		}
		return line, false, err
	}
}

// frameVerdict is what to do with one frame: pass msg on, write reply, or
// (both nil) drop it. why, when set, says what was wrong, for the log.
type frameVerdict struct {
	msg   jsonrpc.Message
	reply []byte
	why   string
}

// isIntegerID reports whether raw has the form of an integer id the SDK
// echoes exactly (it reads ids as float64, exact up to 2^53): an optional
// minus and at most 16 digits, without leading zeros; not "-0".
func isIntegerID(raw []byte) bool {
	digits := bytes.TrimPrefix(raw, []byte("-"))
	if len(digits) == 0 || len(digits) > 16 || (digits[0] == '0' && (len(digits) > 1 || len(raw) > 1)) {
		return false
	}
	for _, d := range digits {
		if d < '0' || d > '9' {
			return false
		}
	}
	return true
}

const maxExactInt = 1<<53 - 1

// checkFrame decides what to do with one line read from the client.
//
//   - a blank line is dropped;
//   - text that is not JSON is answered with -32700 (id null);
//   - a batch, a value that is not an object, nesting deeper than
//     MaxFrameDepth, a duplicated jsonrpc/id/method member, an id that is
//     null or not a string or an integer the SDK can echo exactly, a
//     missing or wrong "jsonrpc": "2.0", a method that is not a string, or
//     anything else the SDK's decoder refuses, is answered with -32600;
//     with the request's id when it has a valid one, null otherwise;
//   - a message without a method (a response to the server) that is
//     malformed is dropped: a response is never answered;
//   - everything else passes, decoded by the SDK.
func checkFrame(line []byte) frameVerdict {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return frameVerdict{}
	}
	if !json.Valid(line) {
		return frameVerdict{reply: errorReply(nil, jsonrpc.CodeParseError, "parse error: not valid JSON"), why: "not JSON"}
	}
	invalid := func(id json.RawMessage, why string) frameVerdict {
		return frameVerdict{reply: errorReply(id, jsonrpc.CodeInvalidRequest, "invalid request: "+why), why: why}
	}
	switch line[0] {
	case '{':
	case '[':
		return invalid(nil, "batches are not supported")
	default:
		return invalid(nil, "not a JSON-RPC object")
	}
	env, err := readEnvelope(line)
	if err != nil {
		return invalid(nil, err.Error())
	}
	id, idErr := checkID(env.id)
	if env.method == nil {
		// A response to one of the server's requests (or junk without a
		// method): never answered, or a client and a server could answer
		// each other's errors for ever.
		if why := badResponse(line, env, idErr); why != "" {
			return frameVerdict{why: why}
		}
	}
	switch {
	case env.dupID:
		return invalid(nil, `duplicate "id" member`)
	case idErr != nil:
		return invalid(nil, idErr.Error())
	case env.depth > MaxFrameDepth:
		return invalid(id, fmt.Sprintf("nesting deeper than %d", MaxFrameDepth))
	case env.dup != "":
		return invalid(id, fmt.Sprintf("duplicate %q member", env.dup))
	case string(env.version) != `"2.0"`:
		return invalid(id, `"jsonrpc" must be "2.0"`)
	case env.method != nil && env.method[0] != '"':
		return invalid(id, `"method" must be a string`)
	}
	if req := env.request(); req != nil {
		return frameVerdict{msg: req}
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		if env.method == nil {
			return frameVerdict{why: "malformed response: " + err.Error()}
		}
		return invalid(id, err.Error())
	}
	return frameVerdict{msg: msg}
}

// badResponse says what is wrong with a frame without a method, which
// passes only as a well-formed response with a valid id.
func badResponse(line []byte, env envelope, idErr error) string {
	switch {
	case env.dupID || env.dup != "":
		return "malformed response: duplicate members"
	case env.id == nil:
		return "neither a method nor an id"
	case idErr != nil:
		return "malformed response: " + idErr.Error()
	case string(env.version) != `"2.0"`:
		return `malformed response: "jsonrpc" must be "2.0"`
	case env.depth > MaxFrameDepth:
		return fmt.Sprintf("malformed response: nesting deeper than %d", MaxFrameDepth)
	}
	return ""
}

// checkID returns the id to echo, nil for none (a notification), or why
// the id is refused. MCP ids are strings or integers, never null.
func checkID(raw json.RawMessage) (json.RawMessage, error) {
	if raw == nil {
		return nil, nil
	}
	switch raw[0] {
	case '"':
		if bytes.IndexByte(raw, '\\') < 0 { // no escapes: the id is the bytes between the quotes
			if !utf8.Valid(raw) || bytes.ContainsRune(raw, utf8.RuneError) {
				return nil, errors.New("id must be a string of valid Unicode or an integer")
			}
			return raw, nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil || !utf8.Valid(raw) || strings.ContainsRune(s, utf8.RuneError) {
			return nil, errors.New("id must be a string of valid Unicode or an integer")
		}
		return raw, nil
	case 'n':
		return nil, errors.New("id must not be null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if !isIntegerID(raw) || err != nil || n > maxExactInt || n < -maxExactInt {
			return nil, fmt.Errorf("id %s must be an integer of at most 53 bits, or a string", raw)
		}
		return raw, nil
	default:
		return nil, errors.New("id must be a string or an integer")
	}
}

// envelope holds the raw members of a frame's top-level object that
// decide how it is read; nil when absent.
type envelope struct {
	version, id, method, params json.RawMessage
	dupID                       bool   // "id" appears twice: which one the SDK reads is not ours to guess
	dup                         string // "jsonrpc" or "method" appears twice
	dupParams                   bool   // "params" appears twice
	hasError                    bool   // an "error" member, which the SDK decodes (and may refuse) even in a request
	depth                       int    // the deepest nesting of objects and arrays in the frame
}

// readEnvelope reads the top level of a JSON object that json.Valid
// accepted (nothing else), in one pass over it: the members that decide
// how it is read, compared by their decoded names (case-sensitive, as
// the SDK's decoder does), and the frame's deepest nesting. The raw
// members are slices of line.
func readEnvelope(line []byte) (envelope, error) {
	var env envelope
	if len(line) == 0 || line[0] != '{' {
		return env, errors.New("not a JSON object")
	}
	env.depth = 1
	i := skipSpace(line, 1)
	for i < len(line) && line[i] != '}' {
		if line[i] == ',' {
			i = skipSpace(line, i+1)
		}
		keyEnd := stringEnd(line, i)
		key, err := memberName(line[i:keyEnd])
		if err != nil {
			return env, err
		}
		i = skipSpace(line, keyEnd)
		i = skipSpace(line, i+1) // the colon
		valueEnd, depth := valueEnd(line, i)
		env.depth = max(env.depth, 1+depth)
		env.keep(key, json.RawMessage(line[i:valueEnd]))
		i = skipSpace(line, valueEnd)
	}
	return env, nil
}

// keep records a top-level member of the frame, named key (decoded),
// whose value is raw: the members that decide how the frame is read, and
// their duplicates.
func (env *envelope) keep(key string, raw json.RawMessage) {
	var slot *json.RawMessage
	switch key {
	case "jsonrpc":
		slot = &env.version
	case "id":
		slot = &env.id
	case "method":
		slot = &env.method
	case "params":
		slot = &env.params
	case "error":
		env.hasError = true
		return
	default:
		return
	}
	if *slot != nil {
		switch key {
		case "id":
			env.dupID = true
		case "params":
			env.dupParams = true
		default:
			env.dup = key
		}
	}
	*slot = raw
}

// memberName is the name a member's quoted key stands for: the bytes
// between the quotes, or, when it has escapes, what they decode to.
func memberName(quoted []byte) (string, error) {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1]), nil
	}
	var name string
	err := json.Unmarshal(quoted, &name)
	return name, err
}

// isSpace reports whether c is JSON white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd is the index just past the string that starts (with its
// quote) at b[i], in valid JSON.
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// valueEnd is the index just past the value that starts at b[i], in
// valid JSON, and the deepest nesting of objects and arrays in it.
func valueEnd(b []byte, i int) (end, deepest int) {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = stringEnd(b, i) - 1
			if depth == 0 {
				return i + 1, deepest
			}
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			if depth == 0 { // the end of the enclosing object
				return trimSpaceEnd(b, i), deepest
			}
			depth--
			if depth == 0 {
				return i + 1, deepest
			}
		case ',':
			if depth == 0 {
				return trimSpaceEnd(b, i), deepest
			}
		}
	}
	return trimSpaceEnd(b, len(b)), deepest
}

// trimSpaceEnd moves end back over the white space before it.
func trimSpaceEnd(b []byte, end int) int {
	for end > 0 && isSpace(b[end-1]) {
		end--
	}
	return end
}

// request is the request a checked envelope holds, built from the
// members readEnvelope kept, as jsonrpc.DecodeMessage would build it; nil
// to leave the frame to DecodeMessage. DecodeMessage reads the whole frame
// again, through a decoder that copies it into a 32 KiB buffer of its own
// first: a twentieth of the server's CPU for a small call. A method or
// string id with escapes or bytes that are not UTF-8 (which the SDK
// replaces), params that are null or given twice, a request with an
// "error" member, and responses are left to it.
func (env envelope) request() *jsonrpc.Request {
	unquoted := func(raw json.RawMessage) (string, bool) {
		if len(raw) < 2 || raw[0] != '"' || bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw) {
			return "", false
		}
		return string(raw[1 : len(raw)-1]), true
	}
	method, ok := unquoted(env.method)
	if !ok || env.dupParams || env.hasError || string(env.params) == "null" {
		return nil
	}
	var id jsonrpc.ID
	switch {
	case env.id == nil: // a notification
	case env.id[0] == '"':
		s, ok := unquoted(env.id)
		if !ok {
			return nil
		}
		id, _ = jsonrpc.MakeID(s)
	default:
		n, err := strconv.ParseInt(string(env.id), 10, 64) // checkID allowed integers of 53 bits only
		if err != nil {
			return nil
		}
		id, _ = jsonrpc.MakeID(float64(n)) // as the SDK reads a number
	}
	return &jsonrpc.Request{ID: id, Method: method, Params: env.params}
}

// errorReply is a JSON-RPC error response; a nil id is null.
func errorReply(id json.RawMessage, code int64, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	// Without HTML escaping, as the SDK writes: the id comes back as the
	// client wrote it ("&" stays "&").
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	if err != nil { // the id passed checkID: cannot happen
		panic(fmt.Sprintf("encode error reply: %v", err))
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
