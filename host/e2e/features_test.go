package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// TestUpstreamResourcesAndPromptsPassThrough: an upstream server's
// resources, resource templates and prompts are offered namespaced
// (mcp://<id>/<uri>, <id>__<prompt>) beside the server's own; reading one,
// a template's match included, and getting a prompt reach the upstream
// server; a resource it adds comes with resources/list_changed; a
// subscription is forwarded and so are its updates; --groups -mcp:ID
// offers none of them; --pii filters what they return.
func TestUpstreamResourcesAndPromptsPassThrough(t *testing.T) {
	t.Parallel()
	mcpFile := mcpConfig(t, map[string]any{"up": upstreamServer("features", map[string]any{"readonly": true})})
	listChanged, updated := make(chan struct{}, 16), make(chan string, 16)
	s := startStdioEnvOpts(t, nil, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			select {
			case listChanged <- struct{}{}:
			default:
			}
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
	}, project(t), "--mcp-config", mcpFile)
	ctx := context.Background()
	cs := s.session

	uris := func() []string {
		res, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.Resources {
			out = append(out, r.URI)
		}
		return out
	}
	if got := uris(); !slices.Contains(got, "mcp://up/note://a") || !slices.Contains(got, "mcp://up/note://b") || !slices.Contains(got, "ramabana://status") {
		t.Fatalf("resources = %v; stderr:\n%s", got, s.stderr)
	}
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(tmpl.ResourceTemplates, func(rt *mcp.ResourceTemplate) bool { return rt.URITemplate == "mcp://up/note://{name}" }) {
		t.Errorf("templates = %+v", tmpl.ResourceTemplates)
	}
	read := func(uri string) string {
		t.Helper()
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		if len(res.Contents) != 1 || res.Contents[0].URI != uri {
			t.Fatalf("read %s: contents %+v, want one under the namespaced URI", uri, res.Contents)
		}
		return res.Contents[0].Text
	}
	if got := read("mcp://up/note://a"); got != "alpha" {
		t.Errorf("note a = %q", got)
	}

	// The server leaves idempotentHint out of echo's annotations: so do
	// the bytes the client got, where the go-sdk would write false.
	if _, ok := tools(t, cs)["up__echo"]; !ok {
		t.Fatal("up__echo not listed")
	}
	if ann := rawAnnotations(t, s.stdout.String(), "up__echo"); ann == nil || ann["readOnlyHint"] != true || ann["openWorldHint"] != false {
		t.Errorf("up__echo's annotations as sent: %v", ann)
	} else if _, ok := ann["idempotentHint"]; ok {
		t.Errorf("up__echo's absent idempotentHint was sent: %v", ann)
	}

	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) != 2 {
		t.Fatalf("prompts = %+v, %v", prompts, err)
	}
	var review string
	for _, p := range prompts.Prompts {
		switch {
		case p.Name == "up__greet" && len(p.Arguments) == 1:
		case strings.HasPrefix(p.Name, "up__review_v2_"): // shortened: "." is not a name every client takes
			review = p.Name
		default:
			t.Errorf("prompt %+v", p)
		}
	}
	// A shortened name reaches the server's own prompt.
	if got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: review}); err != nil || len(got.Messages) != 1 || got.Messages[0].Content.(*mcp.TextContent).Text != "Review this." {
		t.Errorf("get prompt %s = %+v, %v", review, got, err)
	}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "up__greet", Arguments: map[string]string{"name": "Ada"}})
	if err != nil || len(p.Messages) != 1 || p.Messages[0].Content.(*mcp.TextContent).Text != "Say hello to Ada." {
		t.Fatalf("get prompt = %+v, %v", p, err)
	}

	// A subscription reaches the server, and its update the client. The
	// SDK's Subscribe returns once the request is sent (a
	// subscriptions/listen stream): the note is set until an update
	// comes, each time an update of its own.
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "mcp://up/note://a"}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	deadline := time.Now().Add(proctest.Patience)
	for got := false; !got; {
		if res, err := call(t, cs, "up__set_note", map[string]any{"name": "a", "text": "aleph"}); err != nil || res.IsError {
			t.Fatalf("set_note a = %v, %v", res, err)
		}
		select {
		case uri := <-updated:
			if uri != "mcp://up/note://a" {
				t.Errorf("updated %q", uri)
			}
			got = true
		case <-time.After(time.Second):
			if time.Now().After(deadline) {
				t.Fatalf("no resources/updated for the subscribed upstream resource; stderr:\n%s", s.stderr)
			}
		}
	}
	if got := read("mcp://up/note://a"); got != "aleph" {
		t.Errorf("note a after set = %q", got)
	}
	// A new resource upstream is a new resource here.
	if _, err := call(t, cs, "up__set_note", map[string]any{"name": "c", "text": "gamma"}); err != nil {
		t.Fatal(err)
	}
	if !proctest.Await(func() bool { return slices.Contains(uris(), "mcp://up/note://c") }) {
		t.Fatalf("note c not listed: %v", uris())
	}
	select {
	case <-listChanged:
	case <-time.After(proctest.Patience):
		t.Error("no resources/list_changed")
	}
	// The template reaches a note that is not listed as a resource of its own? All are; read one by the template.
	if got := read("mcp://up/note://c"); got != "gamma" {
		t.Errorf("note c = %q", got)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mcp://nosuch/note://a"}); err == nil {
		t.Error("a resource of no server was read")
	}

	// Opted out: nothing of the server is offered.
	out := startStdio(t, project(t), "--mcp-config", mcpFile, "--groups", "-mcp:up")
	res, err := out.session.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Resources {
		if strings.HasPrefix(r.URI, "mcp://up/") {
			t.Errorf("an opted-out server's resource is listed: %s", r.URI)
		}
	}
	if ps, err := out.session.ListPrompts(ctx, nil); err != nil || len(ps.Prompts) != 0 {
		t.Errorf("an opted-out server's prompts: %+v, %v", ps, err)
	}

	// --pii: what a resource and a prompt return leaves filtered.
	pii := startStdio(t, project(t), "--mcp-config", mcpFile, "--pii", "redact")
	if _, err := call(t, pii.session, "up__set_note", map[string]any{"name": "a", "text": "write to " + planted}); err != nil {
		t.Fatal(err)
	}
	got, err := pii.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mcp://up/note://a"})
	if err != nil || len(got.Contents) != 1 || holdsPlanted(got.Contents[0].Text) || !strings.Contains(got.Contents[0].Text, "write to") {
		t.Errorf("--pii redact: note a = %+v, %v; want it read with the planted data redacted", got, err)
	}
	gp, err := pii.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "up__greet", Arguments: map[string]string{"name": planted}})
	if err != nil || len(gp.Messages) != 1 || holdsPlanted(gp.Messages[0].Content.(*mcp.TextContent).Text) {
		t.Errorf("--pii redact: prompt = %+v, %v; want the planted data redacted", gp, err)
	}
}

// TestEverythingsResourcesAndPrompts: the reference test server's
// resources and prompts come through (it is on PATH where .ci/run
// installed it).
func TestEverythingsResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("mcp-server-everything"); err != nil {
		t.Skip("mcp-server-everything not on PATH")
	}
	mcpFile := mcpConfig(t, map[string]any{"everything": map[string]any{"command": "mcp-server-everything", "args": []string{"stdio"}, "readonly": true}})
	s := startStdio(t, project(t), "--mcp-config", mcpFile, "--upstream-wait", "2m")
	ctx := context.Background()
	if !proctest.Await(func() bool {
		ps, err := s.session.ListPrompts(ctx, nil)
		return err == nil && slices.ContainsFunc(ps.Prompts, func(p *mcp.Prompt) bool { return strings.HasPrefix(p.Name, "everything__") })
	}) {
		t.Fatalf("no everything__ prompt; stderr:\n%s", s.stderr)
	}
	res, err := s.session.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var first string
	for _, r := range res.Resources {
		if strings.HasPrefix(r.URI, "mcp://everything/") {
			first = r.URI
			break
		}
	}
	if first == "" {
		t.Fatalf("no everything resource in %d resources", len(res.Resources))
	}
	got, err := s.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: first})
	if err != nil || len(got.Contents) == 0 {
		t.Fatalf("read %s = %+v, %v", first, got, err)
	}
}

// TestUpstreamToolsInTheServersOrder: a client gets an upstream server's
// tools in the order the server lists them (server-everything's is not by
// name), not sorted by name. (A tool everything lists only for a client
// with roots, get-roots-list, is not there: upstream servers get none.)
func TestUpstreamToolsInTheServersOrder(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("mcp-server-everything"); err != nil {
		t.Skip("mcp-server-everything not on PATH")
	}
	ctx := context.Background()
	direct := connect(t, &mcp.CommandTransport{Command: exec.Command("mcp-server-everything", "stdio")})
	listed, err := direct.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, tl := range listed.Tools {
		if n := "everything__" + tl.Name; len(n) <= 64 && tl.Name != "get-roots-list" {
			want = append(want, n)
		}
	}
	if slices.IsSorted(want) {
		t.Fatalf("server-everything lists its tools sorted by name (%v): the test shows nothing", want)
	}
	mcpFile := mcpConfig(t, map[string]any{"everything": map[string]any{"command": "mcp-server-everything", "args": []string{"stdio"}, "readonly": true}})
	s := startStdio(t, project(t), "--mcp-config", mcpFile, "--upstream-wait", "2m")
	res, err := s.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tl := range res.Tools {
		if strings.HasPrefix(tl.Name, "everything__") && len(tl.Name) <= 64 {
			got = append(got, tl.Name)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("through ramabana: %v\nthe server's order: %v", got, want)
	}
}

// rawAnnotations are the annotations of tool in the last tools/list
// response among the server's stdout lines, as sent.
func rawAnnotations(t *testing.T, stdout, tool string) map[string]any {
	t.Helper()
	var found map[string]any
	for _, line := range strings.Split(stdout, "\n") {
		var msg struct {
			Result struct {
				Tools []struct {
					Name        string         `json:"name"`
					Annotations map[string]any `json:"annotations"`
				} `json:"tools"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &msg) != nil {
			continue
		}
		for _, tl := range msg.Result.Tools {
			if tl.Name == tool {
				found = tl.Annotations
			}
		}
	}
	return found
}
