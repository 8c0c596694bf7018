package upstream

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// convertResult turns an MCP tool result into an sdk.Result. Text, image
// and embedded resource blocks map one to one; audio and resource links,
// which sdk.Content cannot carry, become a line of text describing them.
func convertResult(res *mcp.CallToolResult) (*sdk.Result, error) {
	out := &sdk.Result{IsError: res.IsError}
	for _, c := range res.Content {
		out.Content = append(out.Content, convertContent(c))
	}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("structured content: %w", err)
		}
		out.Structured = b
	}
	return out, nil
}

func convertContent(c mcp.Content) sdk.Content {
	switch c := c.(type) {
	case *mcp.TextContent:
		return sdk.Content{Text: c.Text}
	case *mcp.ImageContent:
		return sdk.Content{Image: &sdk.Image{Data: c.Data, MIMEType: c.MIMEType}}
	case *mcp.EmbeddedResource:
		if c.Resource == nil {
			return sdk.Content{Text: "[empty embedded resource]"}
		}
		r := c.Resource
		return sdk.Content{Resource: &sdk.Resource{URI: r.URI, MIMEType: r.MIMEType, Text: r.Text, Blob: r.Blob}}
	case *mcp.AudioContent:
		return sdk.Content{Text: fmt.Sprintf("[audio %s, %d bytes, not shown]", c.MIMEType, len(c.Data))}
	case *mcp.ResourceLink:
		var b strings.Builder
		fmt.Fprintf(&b, "[resource link] %s", c.URI)
		if c.Name != "" {
			fmt.Fprintf(&b, " (%s)", c.Name)
		}
		if c.MIMEType != "" {
			fmt.Fprintf(&b, " %s", c.MIMEType)
		}
		if c.Description != "" {
			fmt.Fprintf(&b, ": %s", c.Description)
		}
		return sdk.Content{Text: b.String()}
	default:
		return sdk.Content{Text: fmt.Sprintf("[unsupported %T content]", c)}
	}
}
