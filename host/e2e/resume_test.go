package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

var errCut = errors.New("connection cut by the test")

// wireEvent is an event as the client read it off the wire.
type wireEvent struct{ id, data string }

// cutter is the client's HTTP transport. It cuts the first tools/call
// event stream in the middle of the event after the first after ones, and
// records the events of that stream and of every resumed one, and the
// Last-Event-ID of each resume.
type cutter struct {
	after int

	mu      sync.Mutex
	cut     bool
	lastID  string // of the last whole event before the cut
	resumes []string
	events  []wireEvent
}

func (c *cutter) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp, err
	}
	resumeFrom := req.Header.Get("Last-Event-ID")
	call := req.Method == http.MethodPost && bytes.Contains(body, []byte(`"tools/call"`))
	if !call && resumeFrom == "" {
		return resp, nil // the standalone stream
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	tap := &tap{c: c, body: resp.Body, cutAfter: -1}
	if resumeFrom != "" {
		c.resumes = append(c.resumes, resumeFrom)
	} else if !c.cut {
		c.cut = true
		tap.cutAfter = c.after
	}
	resp.Body = tap
	return resp, nil
}

// tap passes an event stream through, recording each whole event; with
// cutAfter set, it ends the stream with errCut a few bytes into the event
// after the first cutAfter.
type tap struct {
	c        *cutter
	body     io.ReadCloser
	cutAfter int
	whole    int    // events passed
	partial  int    // bytes passed of the event after them
	buf      []byte // the event being read
	err      error
}

func (t *tap) Read(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.body.Read(p)
	for i := range n {
		if t.whole == t.cutAfter && t.partial == 10 {
			t.err = errCut
			t.body.Close()
			return i, errCut
		}
		t.buf = append(t.buf, p[i])
		if bytes.HasSuffix(t.buf, []byte("\n\n")) {
			t.record()
		} else if t.whole == t.cutAfter {
			t.partial++
		}
	}
	return n, err
}

func (t *tap) record() {
	var e wireEvent
	for line := range strings.SplitSeq(strings.TrimSpace(string(t.buf)), "\n") {
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			e.id = value
		case "data":
			e.data += value
		}
	}
	t.buf = t.buf[:0]
	t.whole++
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.c.events = append(t.c.events, e)
	if t.whole <= t.cutAfter {
		t.c.lastID = e.id
	}
}

func (t *tap) Close() error { return t.body.Close() }

// A call over HTTP whose event stream breaks mid-event is resumed by the
// client with Last-Event-ID: every event the server sent, progress and
// result, reaches the client once, none twice.
func TestHTTPCallSurvivesACutStream(t *testing.T) {
	t.Parallel()
	s, base := startHTTP(t, project(t), "--plugins", pluginDir(t, "echo"))
	cut := &cutter{after: 4} // the priming event and 3 progress notifications
	var mu sync.Mutex
	var seen []float64
	cs := connectWith(t, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: cut}}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, req.Params.Progress)
		},
	})
	if _, ok := tools(t, cs)["slow"]; !ok {
		t.Fatalf("no slow tool; stderr:\n%s", s.stderr)
	}
	params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"seconds": 3}}
	params.SetProgressToken("resume-1")
	res, err := cs.CallTool(t.Context(), params)
	if err != nil || res.IsError || text(res) != "done" {
		t.Fatalf("slow = %v, %v; want done; stderr:\n%s", res, err, s.stderr)
	}

	cut.mu.Lock()
	defer cut.mu.Unlock()
	if !cut.cut || len(cut.resumes) == 0 || cut.resumes[0] != cut.lastID {
		t.Fatalf("cut %v after %q; resumed from %q: want one resume from the last whole event", cut.cut, cut.lastID, cut.resumes)
	}
	// One stream, numbered without a gap or a repeat: the priming event,
	// progress 1, 2, 3... and the result, last.
	var progress []float64
	results := 0
	stream, _, _ := strings.Cut(cut.events[0].id, "_")
	for i, e := range cut.events {
		if want := fmt.Sprintf("%s_%d", stream, i); e.id != want {
			t.Fatalf("event %d has id %q, want %q; events: %q", i, e.id, want, cut.events)
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Progress float64 `json:"progress"`
			} `json:"params"`
		}
		switch {
		case e.data == "":
			if i != 0 {
				t.Errorf("event %d is a priming event (no data); only the first is", i)
			}
		case json.Unmarshal([]byte(e.data), &msg) != nil:
			t.Errorf("event %d: data %q is not JSON-RPC", i, e.data)
		case msg.Method == "notifications/progress":
			progress = append(progress, msg.Params.Progress)
		case msg.ID != nil:
			results++
			if i != len(cut.events)-1 {
				t.Errorf("the result is event %d of %d: not last", i, len(cut.events))
			}
		}
	}
	t.Logf("cut after %s; resumed from %q; %d events, progress 1..%d", cut.lastID, cut.resumes, len(cut.events), len(progress))
	if results != 1 {
		t.Errorf("the server sent the result %d times, want once", results)
	}
	count := func(n int) []float64 {
		want := make([]float64, n)
		for i := range want {
			want[i] = float64(i + 1)
		}
		return want
	}
	if len(progress) <= cut.after || !slices.Equal(progress, count(len(progress))) {
		t.Fatalf("progress on the wire = %v, want 1, 2, 3... on past the cut", progress)
	}
	// The client's handler runs apart from the call's return.
	if !proctest.Await(func() bool { mu.Lock(); defer mu.Unlock(); return len(seen) >= len(progress) }) {
		t.Fatalf("the client saw progress %v of the %d sent", seen, len(progress))
	}
	mu.Lock()
	defer mu.Unlock()
	got := slices.Clone(seen)
	slices.Sort(got)
	if !slices.Equal(got, progress) {
		t.Errorf("the client saw progress %v, want each of 1..%s once", seen, strconv.Itoa(len(progress)))
	}
}
