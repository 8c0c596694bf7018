// The gate must filter every kind of message the protocol has, the ones
// deprecated by SEP-2577 (logging, sampling, roots) too: a server may still
// send them to a client of an earlier protocol.
//
//lint:file-ignore SA1019 the deprecated kinds are driven on purpose
package gate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/gate"
	"github.com/ramabana/ramabana-mcp/host/internal/pii"
)

// The planted values: what must never reach a client in the clear.
const (
	email = "jane.doe@acme.io"
	card  = "4111 1111 1111 1111"
	// planted holds both, as a hostile plugin or upstream server would
	// put them anywhere it can.
	planted = "mail " + email + ", card " + card
)

// TestKindsCoverTheSDK: every method and notification the go-sdk knows is
// in gate.Kinds, so that a kind of message a new SDK brings is classified
// (and driven by TestEveryKindLeavesFiltered) before it is served.
func TestKindsCoverTheSDK(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/modelcontextprotocol/go-sdk").Output()
	if err != nil {
		t.Fatalf("find the go-sdk's source: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "mcp", "protocol.go"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^\s+(?:method|notification)\w+\s+= "([^"]+)"`)
	var methods []string
	for _, m := range re.FindAllStringSubmatch(string(src), -1) {
		methods = append(methods, m[1])
	}
	if len(methods) < 20 {
		t.Fatalf("found %d methods in the go-sdk's protocol.go: the pattern no longer matches it", len(methods))
	}
	for _, m := range methods {
		if _, ok := gate.Kinds[m]; !ok {
			t.Errorf("the go-sdk knows %q, which gate.Kinds does not: classify it, and drive it in TestEveryKindLeavesFiltered", m)
		}
	}
	for m := range gate.Kinds {
		if !slices.Contains(methods, m) {
			t.Errorf("gate.Kinds has %q, which the go-sdk does not know", m)
		}
	}
}

// recorder notes the methods that went by, outside the gate.
type recorder struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (r *recorder) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		r.mu.Lock()
		r.seen[method] = true
		r.mu.Unlock()
		return next(ctx, method, req)
	}
}

// TestEveryKindLeavesFiltered: a server whose every part holds planted
// data (instructions, tools, results of every content type, errors,
// resources, templates, prompts, completions, progress, logging,
// sampling, elicitation) behind the gate, driven through the go-sdk's
// client: no byte the client reads holds a planted value, nor does any
// blob it decodes; what the gate must not touch (an image's data, the
// client's progress token) arrives as it was; and every kind of message
// that gate.Kinds says the server sends went by.
func TestEveryKindLeavesFiltered(t *testing.T) {
	t.Parallel()
	for _, mode := range []pii.Mode{pii.ModeRedact, pii.ModeRefuse} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			everyKind(t, gate.New(mode, false, nil))
		})
	}
}

func everyKind(t *testing.T, g *gate.Gate) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	image := []byte("\x89PNG " + planted) // bytes of an image are not text to filter
	rec := &recorder{seen: map[string]bool{}}
	s := mcp.NewServer(&mcp.Implementation{Name: "hostile", Title: planted, Version: "1"}, &mcp.ServerOptions{
		Instructions: "Instructions: " + planted,
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{email, "ok"}}}, nil
		},
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		Capabilities:       &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}, Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	s.AddTool(&mcp.Tool{
		Name: "everything", Title: "Title " + planted, Description: "Description " + planted,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"to":{"type":"string","description":"default ` + email + `"}}}`),
		Meta:        mcp.Meta{"owner": email},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ss := req.Session
		_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 1, Message: "progress " + planted})
		_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: email, Data: map[string]any{"msg": planted}})
		if _, err := ss.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10, SystemPrompt: planted,
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: planted}}}}); err != nil {
			return nil, err
		}
		if _, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: "confirm " + planted}); err != nil {
			return nil, err
		}
		if _, err := ss.ListRoots(ctx, nil); err != nil {
			return nil, err
		}
		if err := ss.Ping(ctx, nil); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{
			Content: []mcp.Content{
				&mcp.TextContent{Text: planted},
				&mcp.TextContent{Text: `{"structured":"as text","owner":"jane.doe\u0040acme.io","card":"4111\u00201111 1111 1111"}`},
				&mcp.ImageContent{Data: image, MIMEType: "image/png"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Blob: []byte(planted)}},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mailto:" + email, Text: planted}},
				&mcp.ResourceLink{URI: "file:///x", Name: "x", Description: planted},
			},
			StructuredContent: json.RawMessage(`{"contact":"` + email + `","card":4111111111111111,"escaped":"jane.doe\u0040acme.io"}`),
		}, nil
	})
	s.AddTool(&mcp.Tool{Name: "fails", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: -32001, Message: "upstream says: " + planted}
		})
	s.AddResource(&mcp.Resource{URI: "note://1", Name: "note", Description: planted, MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
				{URI: "note://1", Text: planted},
				{URI: "note://1", Blob: []byte(planted)},
			}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "note://{id}", Name: "notes", Description: planted},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, mcp.ResourceNotFoundError(email)
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: planted, Arguments: []*mcp.PromptArgument{{Name: "who", Description: planted}}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: planted, Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: planted}}}}, nil
		})
	s.AddReceivingMiddleware(g.Receiving(), rec.middleware) // the gate outermost of the two
	s.AddSendingMiddleware(rec.middleware)
	s.AddSendingMiddleware(g.Sending())

	var (
		mu       sync.Mutex
		received []any // what the client's handlers were given
	)
	keep := func(v any) {
		mu.Lock()
		received = append(received, v)
		mu.Unlock()
	}
	progress := make(chan *mcp.ProgressNotificationParams, 8)
	updated := make(chan string, 8)
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			keep(req.Params)
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "fine"}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			keep(req.Params)
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- req.Params
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) { keep(req.Params) },
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			updated <- req.Params.URI
		},
	})
	c.AddRoots(&mcp.Root{URI: "file:///work"})
	ct, st := mcp.NewInMemoryTransports()
	var wire bytes.Buffer
	var wireMu sync.Mutex
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	// Protocol 2025-11-25: later ones send sampling, elicitation and roots
	// requests only inside results (TestKindsOfTheLatestProtocol).
	cs, err := c.Connect(ctx, &mcp.LoggingTransport{Transport: ct, Writer: lockedWriter{&wireMu, &wire}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	must("ping", cs.Ping(ctx, nil))
	must("logging/setLevel", cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}))
	tools, err := cs.ListTools(ctx, nil)
	must("tools/list", err)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "everything", Arguments: map[string]any{}, Meta: mcp.Meta{"progressToken": "token " + email}})
	must("tools/call", err)
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "fails", Arguments: map[string]any{}})
	var wireErr *jsonrpc.Error
	if !errors.As(err, &wireErr) || wireErr.Code != -32001 || strings.Contains(wireErr.Message, email) || !strings.Contains(wireErr.Message, "upstream says: mail ") {
		t.Errorf("a JSON-RPC error's text: %v, want it filtered and its code kept", err)
	}
	_, err = cs.ListResources(ctx, nil)
	must("resources/list", err)
	_, err = cs.ListResourceTemplates(ctx, nil)
	must("resources/templates/list", err)
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "note://1"})
	must("resources/read", err)
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "note://2"})
	if err == nil {
		t.Error("reading a missing resource did not fail")
	}
	must("resources/subscribe", cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "note://1"}))
	must("notifications/resources/updated", s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "note://1"}))
	must("resources/unsubscribe", cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "note://1"}))
	_, err = cs.ListPrompts(ctx, nil)
	must("prompts/list", err)
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"})
	must("prompts/get", err)
	_, err = cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, Argument: mcp.CompleteParamsArgument{Name: "who", Value: "j"}})
	must("completion/complete", err)
	// The list_changed notifications.
	s.AddTool(&mcp.Tool{Name: "later", Description: planted, InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "later"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, nil })
	s.AddResource(&mcp.Resource{URI: "note://later", Name: "later"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, nil })

	select {
	case p := <-progress:
		if p.ProgressToken != "token "+email {
			t.Errorf("progress token %v: the client's own token must come back as it sent it", p.ProgressToken)
		}
		if strings.Contains(p.Message, email) || !strings.HasPrefix(p.Message, "progress mail ") {
			t.Errorf("progress message %q", p.Message)
		}
	case <-ctx.Done():
		t.Fatal("no progress notification")
	}
	select {
	case <-updated:
	case <-ctx.Done():
		t.Fatal("no resources/updated notification")
	}
	deadline := time.Now().Add(30 * time.Second) // a hang guard only: the SDK sends list changes after a short delay
	for {
		rec.mu.Lock()
		n := rec.seen["notifications/tools/list_changed"] && rec.seen["notifications/prompts/list_changed"] && rec.seen["notifications/resources/list_changed"]
		rec.mu.Unlock()
		if n || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}

	// The tool list, result and resource as the client decoded them.
	if tools.Tools[0].Description == "Description "+planted {
		t.Error("a tool's description reached the client unfiltered")
	}
	var gotImage []byte
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			// JSON as text, escapes and all, is read as a client that
			// parses it would.
			if decoded := strings.NewReplacer(`\u0040`, "@", `\u0020`, " ").Replace(c.Text); strings.Contains(decoded, email) || strings.Contains(decoded, card) {
				t.Errorf("JSON text with escapes reached the client unfiltered: %s", c.Text)
			}
		case *mcp.ImageContent:
			gotImage = c.Data
		case *mcp.EmbeddedResource:
			if len(c.Resource.Blob) > 0 && strings.Contains(string(c.Resource.Blob), email) {
				t.Errorf("an embedded resource's blob reached the client unfiltered: %q", c.Resource.Blob)
			}
		}
	}
	if !bytes.Equal(gotImage, image) {
		t.Errorf("an image's data was changed: %q", gotImage)
	}
	for _, c := range read.Contents {
		if strings.Contains(string(c.Blob), email) {
			t.Errorf("a resource's blob reached the client unfiltered: %q", c.Blob)
		}
	}
	mu.Lock()
	handed, _ := json.Marshal(received)
	mu.Unlock()
	for _, v := range []string{email, card} {
		if strings.Contains(string(handed), v) {
			t.Errorf("the client's handlers (sampling, elicitation, logging) were handed %q:\n%s", v, handed)
		}
	}

	// Every byte the client read.
	wireMu.Lock()
	var fromServer []string
	for _, line := range strings.Split(wire.String(), "\n") {
		if strings.HasPrefix(line, "read: ") {
			fromServer = append(fromServer, line)
		}
	}
	wireMu.Unlock()
	for _, line := range fromServer {
		for _, v := range []string{email, card, "4111111111111111"} {
			// The progress token is the client's own.
			if strings.Contains(strings.ReplaceAll(line, `"token `+email+`"`, ""), v) {
				t.Errorf("the client read %q:\n%s", v, line)
			}
		}
	}

	// Every kind the server sends went by.
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for method, dir := range gate.Kinds {
		if dir == gate.Inbound || dir == gate.BelowMiddleware {
			continue
		}
		if !rec.seen[method] && !notDriven[method] {
			t.Errorf("%s (%v) was never driven through the gate: drive it here", method, dir)
		}
	}
}

// notDriven are the kinds of protocol 2026-07-28, which the session
// above does not speak: TestKindsOfTheLatestProtocol puts each through
// the gate's middleware.
var notDriven = map[string]bool{
	"server/discover":                          true,
	"subscriptions/listen":                     true,
	"notifications/subscriptions/acknowledged": true,
	"notifications/elicitation/complete":       true,
}

// TestKindsOfTheLatestProtocol: the kinds only protocol 2026-07-28 sends,
// and the requests for input a result of that protocol embeds, leave the
// gate's middleware filtered.
func TestKindsOfTheLatestProtocol(t *testing.T) {
	t.Parallel()
	g := gate.New(pii.ModeRedact, false, nil)
	ctx := context.Background()
	answer := func(method string, res mcp.Result) mcp.Result {
		t.Helper()
		out, err := g.Receiving()(func(context.Context, string, mcp.Request) (mcp.Result, error) { return res, nil })(ctx, method, nil)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return out
	}
	send := func(method string, req mcp.Request) mcp.Request {
		t.Helper()
		var got mcp.Request
		_, err := g.Sending()(func(_ context.Context, _ string, r mcp.Request) (mcp.Result, error) { got = r; return nil, nil })(ctx, method, req)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return got
	}
	results := map[string]mcp.Result{
		"server/discover":      &mcp.DiscoverResult{Instructions: planted, Meta: mcp.Meta{"note": planted}},
		"subscriptions/listen": &mcp.SubscriptionsListenResult{Meta: mcp.Meta{"note": planted}},
		"tools/call": &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
			"1": &mcp.ElicitParams{Message: planted},
			"2": &mcp.CreateMessageParams{SystemPrompt: planted, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: planted}}}},
		}},
	}
	for method, res := range results {
		b, err := json.Marshal(answer(method, res))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), email) || strings.Contains(string(b), card) {
			t.Errorf("%s leaves as %s", method, b)
		}
		if orig, _ := json.Marshal(res); !strings.Contains(string(orig), email) {
			t.Errorf("%s: the original was changed in place: %s", method, orig)
		}
	}
	reqs := map[string]mcp.Request{
		"notifications/subscriptions/acknowledged": &mcp.ServerRequest[*mcp.SubscriptionsAcknowledgedParams]{Params: &mcp.SubscriptionsAcknowledgedParams{
			Meta: mcp.Meta{"note": planted}, Notifications: mcp.NotificationSubscriptions{ResourceSubscriptions: []string{"mailto:" + email}}}},
		"notifications/elicitation/complete": &mcp.ServerRequest[*mcp.ElicitationCompleteParams]{Params: &mcp.ElicitationCompleteParams{ElicitationID: "1", Meta: mcp.Meta{"note": planted}}},
	}
	for method, req := range reqs {
		b, err := json.Marshal(send(method, req).GetParams())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), email) || strings.Contains(string(b), card) {
			t.Errorf("%s leaves as %s", method, b)
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
