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
	Limit    int      `json:"limit,omitempty" jsonschema:"Most memories to return. Default 20, at most 200."`
	Start    int      `json:"start,omitempty" jsonschema:"How many of the most recent memories to skip, for the next page: the offset the previous page named. Default 0."`
	Tags     []string `json:"tags,omitempty" jsonschema:"Only memories that have every one of these tags."`
	Scope    string   `json:"scope,omitempty" jsonschema:"Which memories to list: default the served folders' memories plus global ones; \"project\" the served folders' only; \"global\" global only; \"all\" every memory, other projects' included; or a served folder's path."`
	MaxChars int      `json:"max_chars,omitempty" jsonschema:"Longest content shown per memory, in characters; longer contents are cut with a note. Default 500, at most 20000."`
}

var listSpec = sdk.ToolSpec{
	Name:  "list_memories",
	Title: "List memories",
	Kind:  sdk.KindRead,
	Description: `List stored memories, most recently saved first, a page at a time, without searching (use recall to search by words).

By default it lists the current project's memories (those of the served folders) plus global ones; scope "project", "global", "all" (every project's) or a served folder's path narrows or widens that. tags keeps only memories with every tag given.

Output: a first line "Memories 1-20 of 57 in project /home/u/proj and global, most recent first; next page: offset 20" (the next offset only when more remain), then one content block per memory: a header "id 42 · scope /home/u/proj · tags build, go · saved 2025-01-31 14:02 UTC" and the content on the following lines, cut at max_chars characters (default 500) with a note. limit is 20 by default, at most 200.`,
}

var listSchema = sdk.SchemaFor[listArgs](func(p map[string]*jsonschema.Schema) {
	intBounds(p["limit"], defaultListLimit, 1, maxListLimit)
	intBounds(p["start"], 0, 0, 0)
	intBounds(p["max_chars"], defaultListChars, 1, maxContent)
	p["scope"].Default = []byte(`""`)
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
