package mcpserver_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/hub"
	"github.com/ramabana/ramabana-mcp/host/internal/mcpserver"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// schemaBox declares tools whose schemas the listing must carry whole, and
// tools whose x-mcp-header annotations the SDK refuses.
func schemaBox() *sdk.Toolbox {
	ok := func(context.Context, *sdk.Request) (*sdk.Result, error) { return sdk.TextResult("ok"), nil }
	tool := func(name, in, out string) sdk.Tool {
		spec := sdk.ToolSpec{Name: name, Description: "A tool.", Kind: sdk.KindRead, InputSchema: json.RawMessage(in)}
		if out != "" {
			spec.OutputSchema = json.RawMessage(out)
		}
		return sdk.Tool{Spec: spec, Handler: ok}
	}
	box := sdk.NewToolbox("schemas", sdk.WithVersion("1"), sdk.WithDescription("schemas of every kind"))
	box.AddGroup(sdk.GroupSpec{Name: "schemas"},
		tool("rich", richIn, richOut),
		tool("good_header", goodIn, ""),
		// x-mcp-header on an object property: the SDK refuses the tool.
		tool("bad_header", `{"type":"object","properties":{"p":{"type":"object","x-mcp-header":"P"}}}`, ""),
		// The same, the key spelled with an escape.
		tool("bad_header_escaped", `{"type":"object","properties":{"p":{"type":"object","x\u002dmcp-header":"P"}}}`, ""),
		// Roots the catalog's check (encoding/json's, keys in any case)
		// takes for objects and the SDK does not.
		tool("type_in_capitals", `{"TYPE":"object"}`, ""),
		tool("type_twice", `{"type":"string","Type":"object"}`, ""),
		// Deeper than the SDK's decoder goes, in the input or the output.
		tool("too_deep_in", `{"type":"object","properties":{"p":`+deep(1000)+`}}`, ""),
		tool("too_deep_out", `{"type":"object"}`, `{"type":"object","properties":{"p":`+deep(1000)+`}}`),
	)
	return box
}

const (
	richIn  = `{"type":"object","properties":{"path":{"type":"string","description":"A file."},"lines":{"type":"array","items":{"type":"integer","minimum":1}},"mode":{"enum":["a","b"]}},"required":["path"],"additionalProperties":false}`
	richOut = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`
	goodIn  = `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`
)

// deep is an object schema nested n levels.
func deep(n int) string {
	return strings.Repeat(`{"type":"array","items":`, n-1) + `{"type":"string"}` + strings.Repeat("}", n-1)
}

// TestToolsAreListedWhole: tools/list gives each plugin tool its own
// input and output schemas (the SDK holds a stand-in of it) and calls
// reach it by name; a tool whose schema the SDK refuses is left out as it
// was before stand-ins (an x-mcp-header annotation it refuses, however the
// key is spelled; a root it does not read as an object; a schema deeper
// than its decoder goes), and a sound annotation is listed.
func TestToolsAreListedWhole(t *testing.T) {
	t.Parallel()
	h, err := hub.New(hub.Config{Roots: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	group, desc := sdktest.Connect(t, schemaBox(), sdk.Host{})
	if err := h.AddGroup(desc.Name, group); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(h, mcpserver.Options{Version: "test"}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	// The go-sdk's client drops a tool whose x-mcp-header it refuses: the
	// page is taken as the server sent it.
	client := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)
	var page []*mcp.Tool
	client.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok {
				page = slices.Clone(list.Tools)
			}
			return res, err
		}
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	listed := map[string]*mcp.Tool{}
	for _, tool := range page {
		listed[tool.Name] = tool
	}
	asJSON := func(v any) any {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var out any
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	rich := listed["rich"]
	if rich == nil {
		t.Fatalf("rich is not listed: %v", page)
	}
	if diff := cmp.Diff(asJSON(json.RawMessage(richIn)), asJSON(rich.InputSchema)); diff != "" {
		t.Errorf("rich's input schema (-declared +listed):\n%s", diff)
	}
	if diff := cmp.Diff(asJSON(json.RawMessage(richOut)), asJSON(rich.OutputSchema)); diff != "" {
		t.Errorf("rich's output schema (-declared +listed):\n%s", diff)
	}
	if rich.Description != "A tool." || rich.Annotations == nil || !rich.Annotations.ReadOnlyHint {
		t.Errorf("rich is listed as %+v, annotations %+v", rich, rich.Annotations)
	}
	if good := listed["good_header"]; good == nil {
		t.Error("good_header is not listed")
	} else if diff := cmp.Diff(asJSON(json.RawMessage(goodIn)), asJSON(good.InputSchema)); diff != "" {
		t.Errorf("good_header's input schema (-declared +listed):\n%s", diff)
	}
	for _, name := range []string{"bad_header", "bad_header_escaped", "type_in_capitals", "type_twice", "too_deep_in", "too_deep_out"} {
		if listed[name] != nil {
			t.Errorf("%s is listed, with a schema the SDK refuses", name)
		}
	}
	call, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "rich", Arguments: map[string]any{"path": "a"}})
	if err != nil || call.IsError {
		t.Fatalf("calling rich: %v, %+v", err, call)
	}
	if text := call.Content[0].(*mcp.TextContent).Text; text != "ok" {
		t.Errorf("rich answered %q", text)
	}
}
