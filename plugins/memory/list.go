package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
)

const (
	defaultListLimit = 20
	maxListLimit     = 200
	defaultListChars = 500
)

type listArgs struct {
	Limit    int      `json:"limit,omitempty" jsonschema:"most memories"`
	Start    int      `json:"start,omitempty" jsonschema:"memories to skip"`
	Tags     []string `json:"tags,omitempty" jsonschema:"only memories with all these tags"`
	Scope    string   `json:"scope,omitempty" jsonschema:"project, global, all or a served folder; default project and global"`
	MaxChars int      `json:"max_chars,omitempty" jsonschema:"longest content shown"`
}

var listSpec = sdk.ToolSpec{
	Name:        "list_memories",
	Title:       "List memories",
	Kind:        sdk.KindRead,
	Description: `List saved memories, most recent first, a page at a time (recall searches them). The first line gives the next page's start.`,
}

var listSchema = sdk.LazySchemaFor[listArgs](func(p map[string]*jsonschema.Schema) {
	intBounds(p["limit"], defaultListLimit, 1, maxListLimit)
	intBounds(p["start"], 0, 0, 0)
	intBounds(p["max_chars"], defaultListChars, 1, maxContent)
})

func (s *server) listMemories(ctx context.Context, e env, args listArgs) (*sdk.Result, error) {
	limit, err := bounded("limit", args.Limit, defaultListLimit, maxListLimit)
	if err != nil {
		return nil, err
	}
	maxChars, err := bounded("max_chars", args.MaxChars, defaultListChars, maxContent)
	if err != nil {
		return nil, err
	}
	if args.Start < 0 {
		return nil, sdk.Failf("start must not be negative (got %d)", args.Start)
	}
	tags, err := normalizeTags(args.Tags)
	if err != nil {
		return nil, err
	}
	scopes, label, err := readScopes(e.roots, args.Scope)
	if err != nil {
		return nil, err
	}
	page, total, err := e.store.list(ctx, filter{Scopes: scopes, Tags: tags}, limit, args.Start)
	if err != nil {
		return nil, err
	}
	where := "in " + label
	if len(tags) > 0 {
		where += " with tags " + strings.Join(tags, ", ")
	}
	switch {
	case total == 0:
		return sdk.TextResult(fmt.Sprintf("No memories %s.", where)), nil
	case len(page) == 0:
		return sdk.TextResult(fmt.Sprintf("No memories at start=%d: there are %s %s; the last page is start=%d.",
			args.Start, wording.CountOf(total, "memory", "memories"), where, (total-1)/limit*limit)), nil
	}
	head := fmt.Sprintf("Memories %d-%d of %d %s, most recent first", args.Start+1, args.Start+len(page), total, where)
	if next := args.Start + len(page); next < total {
		head += fmt.Sprintf("; next page: start=%d", next)
	}
	res := &sdk.Result{Content: []sdk.Content{{Text: head + ":"}}}
	for _, m := range page {
		res.Content = append(res.Content, sdk.Content{Text: block(m, false, maxChars)})
	}
	return res, nil
}
