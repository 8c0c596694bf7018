package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// JSON-RPC and LSP error codes.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeRequestCancelled = -32800
	CodeContentModified  = -32801
	CodeServerCancelled  = -32802
	CodeRequestFailed    = -32803
)

// DefaultMaxFrame is the largest message body a Client accepts unless
// Config.MaxFrame says otherwise.
const DefaultMaxFrame = 64 << 20

// maxHeaderLine bounds one header line; maxHeaders the lines of one header.
const (
	maxHeaderLine = 1024
	maxHeaders    = 16
)

// ResponseError is the error a server answered a request with.
type ResponseError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *ResponseError) Error() string {
	return fmt.Sprintf("lsp: %s (code %d)", e.Message, e.Code)
}

// ErrFrameTooLarge is (wrapped in) the error of a frame whose declared
// length exceeds the limit; the stream cannot be trusted after it.
var ErrFrameTooLarge = errors.New("lsp: frame too large")

// readFrame reads one message body framed by a header of
// "Name: value" lines ended by an empty line, of which only Content-Length
// counts. Lines may end in CRLF or LF. A body longer than max, a missing or
// malformed length, or an overlong header is an error: the stream is then
// out of step and must be abandoned.
func readFrame(r *bufio.Reader, max int) ([]byte, error) {
	length := -1
	for n := 0; ; n++ {
		if n == maxHeaders {
			return nil, errors.New("lsp: header has too many lines")
		}
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull || len(line) > maxHeaderLine {
			return nil, errors.New("lsp: header line too long")
		}
		if err != nil {
			if err == io.EOF && (n > 0 || len(line) > 0) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if n == 0 {
				return nil, errors.New("lsp: empty header")
			}
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return nil, fmt.Errorf("lsp: malformed header line %q", line)
		}
		if !bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			continue // Content-Type: the body is UTF-8 JSON whatever it says
		}
		v, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("lsp: malformed Content-Length %q", value)
		}
		if length >= 0 && int64(length) != v {
			return nil, errors.New("lsp: conflicting Content-Length headers")
		}
		if v > int64(max) {
			return nil, fmt.Errorf("%w: %d bytes, the limit is %d", ErrFrameTooLarge, v, max)
		}
		length = int(v)
	}
	if length < 0 {
		return nil, errors.New("lsp: header without Content-Length")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return body, nil
}

// writeFrame writes body with its header in one Write.
func writeFrame(w io.Writer, body []byte) error {
	buf := make([]byte, 0, len(body)+32)
	buf = append(buf, "Content-Length: "...)
	buf = strconv.AppendInt(buf, int64(len(body)), 10)
	buf = append(buf, "\r\n\r\n"...)
	buf = append(buf, body...)
	_, err := w.Write(buf)
	return err
}

// inMessage is any incoming message: a request (ID and Method), a
// notification (Method alone) or a response (ID, and Result or Error).
type inMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *ResponseError  `json:"error"`
}

type outRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      *int64 `json:"id,omitempty"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

type outResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *ResponseError  `json:"error,omitempty"`
}

// reply is what a pending call receives: the response, or why none comes.
type reply struct {
	msg *inMessage
	err error
}

// handlers are what a conn does with the peer's messages. request runs in
// a goroutine of its own and returns the result or, for an error answer, a
// *ResponseError (any other error becomes an internal error). notify runs
// on the reading goroutine, in the order messages came, and must not block.
type handlers struct {
	request func(method string, params json.RawMessage) (any, error)
	notify  func(method string, params json.RawMessage)
}

// conn is one JSON-RPC 2.0 connection: framing, request ids, the calls
// awaiting a response, and dispatch of what the peer sends. It is safe for
// concurrent use.
type conn struct {
	r   *bufio.Reader
	max int
	h   handlers

	wmu sync.Mutex
	w   io.Writer

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan reply
	err     error         // set once by fail: every call from then on fails with it
	failed  chan struct{} // closed by fail
	// endWait bounds how long a notification whose write found the
	// stream broken waits for the owner's fail (0: it does not wait).
	endWait time.Duration

	handling sync.WaitGroup // request handlers running
	// writeTimeout bounds a write to a peer that does not read (0: none);
	// stalled is called when one times out.
	writeTimeout time.Duration
	stalled      func()
}

func newConn(r io.Reader, w io.Writer, max int, h handlers) *conn {
	return &conn{r: bufio.NewReaderSize(r, maxHeaderLine+16), w: w, max: max, h: h, pending: map[int64]chan reply{}, failed: make(chan struct{})}
}

// read dispatches incoming messages until the stream ends or breaks, and
// returns why (io.EOF for a clean end). It does not fail pending calls:
// the owner decides with fail what they learn.
func (c *conn) read() error {
	for {
		body, err := readFrame(c.r, c.max)
		if err != nil {
			return err
		}
		var m inMessage
		if err := json.Unmarshal(body, &m); err != nil {
			continue // the framing holds; a body that is not JSON is dropped
		}
		switch {
		case m.Method != "" && m.ID != nil:
			c.handling.Add(1)
			go func() {
				defer c.handling.Done()
				c.serve(&m)
			}()
		case m.Method != "":
			if c.h.notify != nil {
				c.h.notify(m.Method, m.Params)
			}
		case m.ID != nil:
			id, err := strconv.ParseInt(string(m.ID), 10, 64)
			if err != nil {
				continue // not an id this side ever sent
			}
			c.mu.Lock()
			ch := c.pending[id]
			delete(c.pending, id)
			c.mu.Unlock()
			if ch != nil {
				ch <- reply{msg: &m}
			}
		}
	}
}

// serve answers one request of the peer.
func (c *conn) serve(m *inMessage) {
	resp := outResponse{JSONRPC: "2.0", ID: m.ID}
	if c.h.request == nil {
		resp.Error = &ResponseError{Code: CodeMethodNotFound, Message: "method not found: " + m.Method}
	} else if result, err := c.h.request(m.Method, m.Params); err != nil {
		if !errors.As(err, &resp.Error) {
			resp.Error = &ResponseError{Code: CodeInternalError, Message: err.Error()}
		}
	} else if resp.Result, err = json.Marshal(result); err != nil {
		resp.Result, resp.Error = nil, &ResponseError{Code: CodeInternalError, Message: err.Error()}
	}
	if body, err := json.Marshal(resp); err == nil {
		_ = c.write(body) // a broken stream is the reader's to report
	}
}

// write sends one message body. Writes are serialised; one blocks while
// the peer does not read, until the stream breaks or, for a writer with
// deadlines, writeTimeout passes: then the frame is cut, the stream is out
// of step for good, and stalled is called (to end the peer).
func (c *conn) write(body []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	d, ok := c.w.(interface{ SetWriteDeadline(time.Time) error })
	if ok && c.writeTimeout > 0 && d.SetWriteDeadline(time.Now().Add(c.writeTimeout)) == nil {
		defer func() { _ = d.SetWriteDeadline(time.Time{}) }()
	}
	err := writeFrame(c.w, body)
	if errors.Is(err, os.ErrDeadlineExceeded) && c.stalled != nil {
		c.stalled()
	}
	return err
}

// notify sends a notification.
func (c *conn) notify(method string, params any) error {
	body, err := json.Marshal(outRequest{JSONRPC: "2.0", Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("lsp: %s: %w", method, err)
	}
	c.mu.Lock()
	err = c.err
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if err := c.write(body); err != nil {
		return c.endOf(err)
	}
	return nil
}

// endOf is the error of a write that failed with err: when the stream
// broke under it (the peer ended), the owner's fail error once it comes,
// within endWait (an *ExitError, which says how the peer ended and is what
// the pending calls get), else err itself. A write that timed out stays
// its own error: it says why the peer is being stopped.
func (c *conn) endOf(err error) error {
	broken := errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe)
	if !broken || c.endWait <= 0 {
		return err
	}
	timer := time.NewTimer(c.endWait)
	defer timer.Stop()
	select {
	case <-c.failed:
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.err
	case <-timer.C:
		return err
	}
}

// call sends a request and waits for its response, which it decodes into
// result (when non-nil). When ctx ends first, it sends $/cancelRequest and
// returns ctx's error; a late response is dropped. A response error is
// returned as a *ResponseError; a connection that fails first, as fail's
// error.
func (c *conn) call(ctx context.Context, method string, params, result any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.mu.Unlock()
	body, err := json.Marshal(outRequest{JSONRPC: "2.0", ID: &id, Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("lsp: %s: %w", method, err)
	}
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return c.err
	}
	c.pending[id] = ch
	c.mu.Unlock()
	// A failed write needs no handling here: the stream is broken, the
	// owner learns it from read, and fail answers this call.
	_ = c.write(body)
	select {
	case r := <-ch:
		if r.err != nil {
			return r.err
		}
		if r.msg.Error != nil {
			return r.msg.Error
		}
		if result == nil || len(r.msg.Result) == 0 {
			return nil
		}
		if err := json.Unmarshal(r.msg.Result, result); err != nil {
			return fmt.Errorf("lsp: %s: decoding the result: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		if c.forget(id) {
			_ = c.notify("$/cancelRequest", map[string]int64{"id": id})
		}
		return ctx.Err()
	}
}

// forget drops a pending call and reports whether it was still pending.
func (c *conn) forget(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[id]
	delete(c.pending, id)
	return ok
}

// fail ends the connection for its callers: every pending call and every
// later call or notification fails with err. Only the first call counts.
func (c *conn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	close(c.failed)
	for id, ch := range c.pending {
		ch <- reply{err: err}
		delete(c.pending, id)
	}
}
