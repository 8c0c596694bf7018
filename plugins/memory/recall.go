package memory

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
)

const (
	defaultRecallLimit = 10
	maxRecallLimit     = 100
	defaultRecallChars = 2000
)

type recallArgs struct {
	Query    string   `json:"query" jsonschema:"plain words"`
	Tags     []string `json:"tags,omitempty" jsonschema:"only memories with all these tags"`
	Scope    string   `json:"scope,omitempty" jsonschema:"project, global, all or a served folder; default project and global"`
	Limit    int      `json:"limit,omitempty" jsonschema:"most memories"`
	MaxChars int      `json:"max_chars,omitempty" jsonschema:"longest content shown"`
}

var recallSpec = sdk.ToolSpec{
	Name:        "recall",
	Title:       "Recall memories",
	Kind:        sdk.KindRead,
	Description: `Search long-term memory (notes saved with remember) by words, best first; words match by prefix and stem, with no search syntax. Recall before starting on a project or task.`,
}

var recallSchema = sdk.LazySchemaFor[recallArgs](func(p map[string]*jsonschema.Schema) {
	minLen := 1
	p["query"].MinLength = &minLen
	intBounds(p["limit"], defaultRecallLimit, 1, maxRecallLimit)
	intBounds(p["max_chars"], defaultRecallChars, 1, maxContent)
})

func (s *server) recall(ctx context.Context, e env, args recallArgs) (*sdk.Result, error) {
	limit, err := bounded("limit", args.Limit, defaultRecallLimit, maxRecallLimit)
	if err != nil {
		return nil, err
	}
	maxChars, err := bounded("max_chars", args.MaxChars, defaultRecallChars, maxContent)
	if err != nil {
		return nil, err
	}
	words := queryWords(args.Query)
	if len(words) == 0 {
		return nil, sdk.Failf("query %q has no words to search for; give words (letters or digits), or use list_memories to see memories without searching", args.Query)
	}
	tags, err := normalizeTags(args.Tags)
	if err != nil {
		return nil, err
	}
	scopes, label, err := readScopes(e.roots, args.Scope)
	if err != nil {
		return nil, err
	}
	found, err := e.store.search(ctx, words, filter{Scopes: scopes, Tags: tags}, limit)
	if err != nil {
		return nil, err
	}
	query := strings.Join(words, " ")
	where := "in " + label
	if len(tags) > 0 {
		where += " with tags " + strings.Join(tags, ", ")
	}
	var common string
	if len(found.Common) > 0 {
		common = fmt.Sprintf("; left out %s: in most memories, too common to rank by", quoteAll(found.Common))
	}
	if len(found.Found) == 0 {
		return sdk.TextResult(fmt.Sprintf("No memories match %q %s%s.", query, where, common)), nil
	}
	head := fmt.Sprintf("%s match %q %s, best first", wording.CountOf(len(found.Found), "memory", "memories"), query, where)
	if found.More {
		head = fmt.Sprintf("The %d best memories matching %q %s (more match: raise limit, at most %d, or add words or tags)",
			len(found.Found), query, where, maxRecallLimit)
	}
	head += common + ":"
	res := &sdk.Result{Content: []sdk.Content{{Text: head}}}
	best := found.Found[0].Score
	for _, m := range found.Found {
		m.Score = relevance(m.Score, best)
		res.Content = append(res.Content, sdk.Content{Text: block(m, true, maxChars)})
	}
	return res, nil
}

// relevance is a match's BM25 score over the best match's, so the best
// reads 1.00 however few memories there are: raw BM25 of a lone match in a
// small store is near zero, which reads as "irrelevant".
func relevance(score, best float64) float64 {
	if best <= 0 || score >= best {
		return 1
	}
	return max(score, 0) / best
}

// bounded applies a default to an optional count and checks its bounds.
func bounded(name string, v, def, maximum int) (int, error) {
	switch {
	case v == 0:
		return def, nil
	case v < 0:
		return 0, sdk.Failf("%s must be positive (got %d); default %d, at most %d", name, v, def, maximum)
	case v > maximum:
		return 0, sdk.Failf("%s is at most %d (got %d)", name, maximum, v)
	}
	return v, nil
}

// quoteAll is "a", "b", "c".
func quoteAll(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = strconv.Quote(w)
	}
	return strings.Join(q, ", ")
}
