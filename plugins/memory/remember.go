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
	Content string   `json:"content" jsonschema:"the note, self-contained"`
	Tags    []string `json:"tags,omitempty" jsonschema:"one-word labels to filter by"`
	Scope   string   `json:"scope,omitempty" jsonschema:"\"project\", \"global\" or a served folder's path"`
}

var rememberSpec = sdk.ToolSpec{
	Name:  "remember",
	Title: "Remember",
	Kind:  sdk.KindWrite,
	// Storing the same content twice stores it once, and nothing is
	// overwritten: not destructive, idempotent.
	Annotations: sdk.Annotations{Destructive: new(false), Idempotent: new(true)},
	Description: `Save a note to long-term memory for later sessions: a user preference, a decision and its reason, a convention, a command that works. Write it to stand alone, in words someone would search for. By default it belongs to this project; scope "global" recalls it everywhere. Returns its id.`,
}

var rememberSchema = sdk.LazySchemaFor[rememberArgs](func(p map[string]*jsonschema.Schema) {
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
