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
	Query    string   `json:"query" jsonschema:"Words to search for, in plain language, e.g. \"how to run the integration tests\". Any word may match; memories matching more of them, and rarer ones, rank first. Words match as prefixes (\"deploy\" finds \"deployment\") and by stem (\"running\" finds \"runs\"). No search syntax: quotes, *, -, AND, OR, NEAR are ordinary text."`
	Tags     []string `json:"tags,omitempty" jsonschema:"Only memories that have every one of these tags."`
	Scope    string   `json:"scope,omitempty" jsonschema:"Which memories to search: default the served folders' memories plus global ones; \"project\" the served folders' only; \"global\" global only; \"all\" every memory, other projects' included; or a served folder's path."`
	Limit    int      `json:"limit,omitempty" jsonschema:"Most memories to return. Default 10, at most 100."`
	MaxChars int      `json:"max_chars,omitempty" jsonschema:"Longest content shown per memory, in characters; longer contents are cut with a note. Default 2000, at most 20000."`
}

var recallSpec = sdk.ToolSpec{
	Name:  "recall",
	Title: "Recall memories",
	Kind:  sdk.KindRead,
	Description: `Search long-term memory (notes stored with remember) by full-text search, ranked by relevance (BM25): memories matching more of the query's words, and rarer words, come first. Recall before starting work on a project or a task, to pick up the user's preferences and what earlier sessions learned.

The query is plain words: any word may match; each word also matches as a prefix ("deploy" finds "deployment") and by stem ("running" finds "runs"); tags are searched too. Search syntax has no meaning: quotes, *, -, :, AND, OR, NEAR are ordinary text.

In a large store (a thousand memories or more), a word in at least half of them, such as "the", is left out of a query that has rarer words, as it cannot rank anything; the first line names such words.

By default it searches the current project's memories (those of the served folders) plus global ones; scope "project", "global", "all" (every project's) or a served folder's path narrows or widens that. tags keeps only memories with every tag given.

Output: a first line saying how many memories were found and where, then one content block per memory, best first: a header "id 42 · score 7.31 · scope /home/u/proj · tags build, go · saved 2025-01-31 14:02 UTC" and the content on the following lines. Contents longer than max_chars (default 2000) are cut, with a note giving the max_chars that shows all. When more memories match than limit (default 10, at most 100), the first line says so. No match is not an error: the answer says no memories match.`,
}

var recallSchema = sdk.SchemaFor[recallArgs](func(p map[string]*jsonschema.Schema) {
	minLen := 1
	p["query"].MinLength = &minLen
	intBounds(p["limit"], defaultRecallLimit, 1, maxRecallLimit)
	intBounds(p["max_chars"], defaultRecallChars, 1, maxContent)
	p["scope"].Default = []byte(`""`)
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
