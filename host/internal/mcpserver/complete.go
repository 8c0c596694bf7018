package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxCompletions is the most values one completion/complete answer holds,
// the spec's cap; total and hasMore say how many more matched.
const maxCompletions = 100

// complete answers completion/complete. MCP completes the arguments of
// prompts and of resource templates only, not tools'; this server has no
// prompts, so the one argument it completes is the name in skill://{name}:
// the names in the host's skill library (skill files, plugins' and
// upstream servers' skill tools) that begin with what the client has
// typed, case aside, in name order. Any other argument or reference gets no
// values, not an error: a client may ask about every argument it shows.
func (r *resources) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	values := []string{} // never null: "values" is required
	p := req.Params
	if p.Ref.Type == "ref/resource" && p.Ref.URI == SkillURI && p.Argument.Name == "name" {
		prefix := strings.ToLower(p.Argument.Value)
		for _, s := range r.host.Skills().List() {
			if strings.HasPrefix(s.Name, prefix) {
				values = append(values, s.Name)
			}
		}
	}
	total := len(values)
	if total > maxCompletions {
		values = values[:maxCompletions]
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{
		Values: values, Total: total, HasMore: total > maxCompletions,
	}}, nil
}
