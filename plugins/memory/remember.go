package memory

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// maxContent is the most characters one memory holds.
const maxContent = 20000

type rememberArgs struct {
	Content string   `json:"content" jsonschema:"The note to remember, self-contained: it will be read later without this conversation. At most 20000 characters; leading and trailing white space is dropped."`
	Tags    []string `json:"tags,omitempty" jsonschema:"Labels to filter by later, each one word (letters, digits, '-', '_'; no spaces or commas), case-insensitive, e.g. [\"build\", \"code-style\"]. At most 20."`
	Scope   string   `json:"scope,omitempty" jsonschema:"Where the memory belongs: \"project\" (default: the first served folder, so it is recalled only when that folder is served), \"global\" (recalled in every project), or the path of a served folder."`
}

var rememberSpec = sdk.ToolSpec{
	Name:  "remember",
	Title: "Remember",
	Kind:  sdk.KindWrite,
	// Storing the same content twice stores it once, and nothing is
	// overwritten: not destructive, idempotent.
	Annotations: sdk.Annotations{Destructive: new(false), Idempotent: new(true)},
	Description: `Store a note in long-term memory, to recall in later sessions: a user preference, a decision and its reason, a project convention, a command that works, a fact that took effort to find.

Write the note so it stands on its own; it is found later by full-text search (recall), so use the words someone would search for. Tags are optional one-word labels that recall and list_memories can filter by.

Scope: by default the memory belongs to the current project (the first served folder) and is recalled only when that folder is served; scope "global" makes it recall everywhere (for the user's general preferences); a served folder's path files it under that folder.

Returns the new memory's id, e.g. "Remembered as id 42 (scope /home/u/proj; tags build, go)." Storing content that the scope already holds (the same text exactly) stores nothing: the answer names the existing id and adds any new tags to it. Content is at most 20,000 characters; at most 20 tags.`,
}

var rememberSchema = sdk.SchemaFor[rememberArgs](func(p map[string]*jsonschema.Schema) {
	minLen, maxLen := 1, maxContent
	p["content"].MinLength, p["content"].MaxLength = &minLen, &maxLen
	maxItems := maxTags
	p["tags"].MaxItems = &maxItems
	p["scope"].Default = []byte(`"project"`)
})

func (s *server) remember(ctx context.Context, e env, args rememberArgs) (*sdk.Result, error) {
	content := strings.TrimSpace(args.Content)
	if content == "" {
		return nil, sdk.Failf("content is empty; give the note to remember")
	}
	if n := utf8.RuneCountInString(content); n > maxContent {
		return nil, sdk.Failf("content has %d characters; a memory holds at most %d: split it into several memories or store a summary", n, maxContent)
	}
	tags, err := normalizeTags(args.Tags)
	if err != nil {
		return nil, err
	}
	scope, note, err := writeScope(e.roots, args.Scope)
	if err != nil {
		return nil, err
	}
	res, err := e.store.add(ctx, content, tags, scope, time.Now())
	if err != nil {
		return nil, err
	}
	where := "scope " + scope + note
	if len(res.Tags) > 0 {
		where += "; tags " + strings.Join(res.Tags, ", ")
	}
	switch {
	case !res.Duplicate:
		return sdk.TextResult(fmt.Sprintf("Remembered as id %d (%s).", res.ID, where)), nil
	case len(res.NewTags) > 0:
		return sdk.TextResult(fmt.Sprintf("Already remembered as id %d (same content, %s); not stored again. Added tags %s to it.",
			res.ID, where, strings.Join(res.NewTags, ", "))), nil
	default:
		return sdk.TextResult(fmt.Sprintf("Already remembered as id %d (same content, %s); not stored again.", res.ID, where)), nil
	}
}
