package upstream

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// The common block types are converted over real sessions in
// TestConnToolsAndCall; these are the ones sdk.Content has no field for.
func TestConvertResult(t *testing.T) {
	t.Parallel()
	size := int64(10)
	got, err := convertResult(&mcp.CallToolResult{
		Content: []mcp.Content{
			&mcp.AudioContent{Data: []byte("abc"), MIMEType: "audio/wav"},
			&mcp.ResourceLink{URI: "file:///x.txt", Name: "x", MIMEType: "text/plain", Description: "a file", Size: &size},
			&mcp.ResourceLink{URI: "file:///y"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///b.bin", Blob: []byte{1, 2}}},
		},
		StructuredContent: []int{1, 2},
		IsError:           true,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := &sdk.Result{
		IsError: true,
		Content: []sdk.Content{
			{Text: "[audio audio/wav, 3 bytes, not shown]"},
			{Text: "[resource link] file:///x.txt (x) text/plain: a file"},
			{Text: "[resource link] file:///y"},
			{Resource: &sdk.Resource{URI: "file:///b.bin", Blob: []byte{1, 2}}},
		},
		Structured: json.RawMessage(`[1,2]`),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
