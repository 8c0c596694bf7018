package gate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/pii"
)

// TestWalker: every string is filtered wherever it is, but for the
// protocol's own (a progress notification's token, a cursor); the value
// given is never changed.
func TestWalker(t *testing.T) {
	t.Parallel()
	const email = "jane.doe@acme.io"
	f := pii.Filter{Mode: pii.ModeRedact}
	progress := &mcp.ProgressNotificationParams{ProgressToken: "token " + email, Message: "at " + email,
		Meta: mcp.Meta{"progressToken": email, "nested": map[string]any{"card": json.Number("4111111111111111"), email: 1}}}
	out, found := filterValue[mcp.Params](f, progress)
	got, _ := json.Marshal(out)
	if found != 4 {
		t.Errorf("found %d, want 4: %s", found, got)
	}
	if p := out.(*mcp.ProgressNotificationParams); p.ProgressToken != "token "+email {
		t.Errorf("the progress token became %v: it is the client's own", p.ProgressToken)
	}
	if n := strings.Count(string(got), email); n != 1 {
		t.Errorf("%d addresses left (want the token's only): %s", n, got)
	}
	if !strings.Contains(string(got), `"card":"[REDACTED:card]"`) {
		t.Errorf("a card number sent as a number: %s", got)
	}
	if orig, _ := json.Marshal(progress); strings.Count(string(orig), email) != 4 {
		t.Errorf("the value given was changed: %s", orig)
	}
	list := &mcp.ListToolsResult{NextCursor: email, Tools: []*mcp.Tool{{Name: "t", Description: "ask " + email}}}
	res, found := filterValue[mcp.Result](f, list)
	if l := res.(*mcp.ListToolsResult); found != 1 || l.NextCursor != email || strings.Contains(l.Tools[0].Description, email) || list.Tools[0].Description != "ask "+email {
		t.Errorf("a listing: %+v (found %d); the original: %+v", l, found, list.Tools[0])
	}
	clean := &mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: "t", Description: "nothing personal"}}}
	if res, found := filterValue[mcp.Result](f, clean); found != 0 || res != mcp.Result(clean) {
		t.Errorf("a clean value was copied (found %d)", found)
	}
}
