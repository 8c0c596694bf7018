// Command floor is the benchmarks' floor: a bare go-sdk MCP server over
// stdio with in-process tools only, doing the least any Go MCP server must do.
// ramabana-mcp's figures are read as ratios to it, measured in the same run.
//
// It serves two tools:
//
//	echo        {"text"} returns the text
//	send_bytes  {"path"} returns the file's exact bytes as one text content
//
// send_bytes is given a file that holds what ramabana-mcp's view_file
// returned, so both servers encode and send the same bytes.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Text string `json:"text"`
}

type sendArgs struct {
	Path string `json:"path"`
}

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	s := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text."}, echo)
	mcp.AddTool(s, &mcp.Tool{Name: "send_bytes", Description: "Return a file's bytes as one text content."}, sendBytes)
	return s.Run(ctx, &mcp.StdioTransport{})
}

func echo(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
}

func sendBytes(_ context.Context, _ *mcp.CallToolRequest, a sendArgs) (*mcp.CallToolResult, any, error) {
	b, err := os.ReadFile(a.Path)
	if err != nil {
		return nil, nil, fmt.Errorf("send_bytes: %w", err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
}
