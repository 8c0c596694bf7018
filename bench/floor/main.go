// Command floor is the benchmarks' floor: a bare go-sdk MCP server over
// stdio with in-process tools only, doing the least any Go MCP server must do.
// ramabana-mcp's figures are read as ratios to it, measured in the same run.
//
// With -http ADDR it serves the same tools over the SDK's streamable HTTP
// handler at http://ADDR/mcp instead (one server for every session, SDK
// defaults), and writes "listening mcp=http://HOST:PORT/mcp" on stderr once
// it accepts connections; ADDR may have port 0.
//
// It serves two tools:
//
//	echo        {"text"} returns the text
//	send_bytes  {"path"} returns the file's exact bytes as one text content
//
// send_bytes is given a file that holds what ramabana-mcp's view_file
// returned, so both servers encode and send the same bytes.
//
// With -tools FILE it also lists the tools FILE holds (a JSON array of MCP
// tools, as a tools/list result carries them), each answering a call with
// its arguments as text: a client then parses the same catalog from the
// floor as from the server the tools were listed from.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
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
	addr := flag.String("http", "", "serve streamable HTTP on this address instead of stdio")
	toolsFile := flag.String("tools", "", "also list the tools this file holds (a JSON array of MCP tools)")
	flag.Parse()
	s := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text."}, echo)
	mcp.AddTool(s, &mcp.Tool{Name: "send_bytes", Description: "Return a file's bytes as one text content."}, sendBytes)
	if *toolsFile != "" {
		data, err := os.ReadFile(*toolsFile)
		if err != nil {
			return err
		}
		var tools []*mcp.Tool
		if err := json.Unmarshal(data, &tools); err != nil {
			return fmt.Errorf("%s: %w", *toolsFile, err)
		}
		for _, t := range tools {
			s.AddTool(t, echoArguments)
		}
	}
	if *addr == "" {
		return s.Run(ctx, &mcp.StdioTransport{})
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	fmt.Fprintf(os.Stderr, "listening mcp=http://%s/mcp\n", ln.Addr())
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	return http.Serve(ln, mux)
}

func echo(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
}

func echoArguments(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
}

func sendBytes(_ context.Context, _ *mcp.CallToolRequest, a sendArgs) (*mcp.CallToolResult, any, error) {
	b, err := os.ReadFile(a.Path)
	if err != nil {
		return nil, nil, fmt.Errorf("send_bytes: %w", err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
}
