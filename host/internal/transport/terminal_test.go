package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// TestStdioTerminal: with Terminal set, a bad line is explained there in
// plain words, not logged; it is still answered on Out, and the good
// message after it still passes.
func TestStdioTerminal(t *testing.T) {
	t.Parallel()
	var out, term, logs bytes.Buffer
	in := strings.NewReader("hello\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
	conn, err := (&StdioTransport{In: in, Out: &out, Terminal: &term, Logger: slog.New(slog.NewTextHandler(&logs, nil))}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	n := 0
	for {
		_, err := conn.Read(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1 {
		t.Errorf("%d messages passed, want the ping", n)
	}
	if want := "not a JSON-RPC message (not JSON): an MCP server reads one JSON-RPC message a line, from its client; Ctrl-D quits\n"; term.String() != want {
		t.Errorf("terminal got %q, want %q", term.String(), want)
	}
	if logs.Len() != 0 {
		t.Errorf("logged %q, want nothing: the terminal has it", logs.String())
	}
	if !strings.Contains(out.String(), `"code":-32700`) {
		t.Errorf("out %q, want the parse error", out.String())
	}
}
