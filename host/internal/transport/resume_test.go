package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// sseEvent is one event of an event stream, as a client reads it.
type sseEvent struct {
	id, retry, data string
	hasID           bool
}

// readEvent reads the next dispatched event of an event stream: comments
// and blocks without data or id are skipped, as a client skips them.
func readEvent(br *bufio.Reader) (sseEvent, error) {
	var e sseEvent
	var data []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return e, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			e.data = strings.Join(data, "\n")
			if data != nil || e.hasID {
				return e, nil
			}
			e = sseEvent{}
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			e.id, e.hasID = value, true
		case "retry":
			e.retry = value
		case "data":
			data = append(data, value)
		}
	}
}

// rawSession speaks streamable HTTP to url by hand, to see each event as
// sent.
type rawSession struct {
	t   *testing.T
	url string
	id  string
}

func (s *rawSession) request(method, body string, header map[string]string) *http.Response {
	s.t.Helper()
	req, err := http.NewRequestWithContext(s.t.Context(), method, s.url, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	return resp
}

// resume sends the GET that resumes a stream after lastID, again while the
// server still holds the stream for the request it lost (409), and
// returns the first other answer.
func (s *rawSession) resume(lastID string) *http.Response {
	s.t.Helper()
	var resp *http.Response
	if !proctest.Await(func() bool {
		resp = s.request(http.MethodGet, "", map[string]string{"Last-Event-ID": lastID})
		if resp.StatusCode != http.StatusConflict {
			return true
		}
		resp.Body.Close()
		return false
	}) {
		s.t.Fatalf("resuming after %s: the server still holds the stream", lastID)
	}
	return resp
}

// A call's stream opens with the priming event (an id, empty data) and the
// retry field; cut, it resumes from an event the server still keeps, and a
// resume from one the per-session cap dropped is refused whole (400), not
// sent with a hole in it.
func TestHTTPStreamResumesWithinTheKeptEvents(t *testing.T) {
	t.Parallel()
	const sent, size = 10, 1000
	release := make(chan struct{})
	h, err := HTTPHandler(func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "t"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "emit"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			for i := range sent {
				p := &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i + 1), Message: strings.Repeat("x", size)}
				if err := req.Session.NotifyProgress(ctx, p); err != nil {
					return nil, nil, err
				}
			}
			select {
			case <-release:
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
		return s
	}, HTTPOptions{EventBytesPerSession: 4 * (size + 300)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	s := &rawSession{t: t, url: ts.URL + "/mcp"}
	resp := s.request(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, nil)
	s.id = resp.Header.Get("Mcp-Session-Id")
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if s.id == "" {
		t.Fatalf("initialize: %s, no session id", resp.Status)
	}
	resp = s.request(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	resp.Body.Close()

	call := s.request(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"emit","arguments":{},"_meta":{"progressToken":"p"}}}`, nil)
	br := bufio.NewReader(call.Body)
	prime, err := readEvent(br)
	if err != nil {
		t.Fatal(err)
	}
	stream, index, _ := strings.Cut(prime.id, "_")
	if !prime.hasID || index != "0" || prime.data != "" || prime.retry != strconv.FormatInt(ReconnectDelay.Milliseconds(), 10) {
		t.Fatalf("first event = %+v, want the priming event: id <stream>_0, empty data, retry %v", prime, ReconnectDelay)
	}
	var last sseEvent
	for i := 1; i <= sent; i++ {
		if last, err = readEvent(br); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("%s_%d", stream, i); last.id != want || !strings.Contains(last.data, `"progress":`+strconv.Itoa(i)) {
			t.Fatalf("event %d = id %q, %.80s; want id %s, progress %d", i, last.id, last.data, want, i)
		}
	}
	call.Body.Close() // the cut

	// Closed unread: a stream wrongly resumed would not end.
	purged := s.resume(prime.id)
	purged.Body.Close()
	if purged.StatusCode != http.StatusBadRequest {
		t.Errorf("resuming after %s, since dropped: %s, want 400", prime.id, purged.Status)
	}

	// The result is sent while no request holds the stream: the resume
	// gets it from the store.
	close(release)
	resumed := s.resume(last.id)
	defer resumed.Body.Close()
	if resumed.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resumed.Body)
		t.Fatalf("resuming after %s: %s %q", last.id, resumed.Status, body)
	}
	br = bufio.NewReader(resumed.Body)
	got, err := readEvent(br)
	if err != nil {
		t.Fatal(err)
	}
	var msg struct {
		ID     int `json:"id"`
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(got.data), &msg); err != nil || msg.ID != 2 || len(msg.Result.Content) != 1 || msg.Result.Content[0].Text != "done" {
		t.Fatalf("resumed stream sent %q (%v), want the call's result", got.data, err)
	}
	if want := fmt.Sprintf("%s_%d", stream, sent+1); got.id != want {
		t.Errorf("the result's id = %q, want %q: the next after the last event seen", got.id, want)
	}
	if extra, err := readEvent(br); err != io.EOF {
		t.Errorf("after the result: %+v, %v; want the stream's end", extra, err)
	}
}
