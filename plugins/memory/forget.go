package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// maxForget is the most ids one forget call takes.
const maxForget = 100

type forgetArgs struct {
	ID  int64   `json:"id,omitempty" jsonschema:"a memory's id"`
	IDs []int64 `json:"ids,omitempty" jsonschema:"several memories' ids"`
}

var forgetSpec = sdk.ToolSpec{
	Name:  "forget",
	Title: "Forget memories",
	Kind:  sdk.KindWrite,
	// Forgetting what is gone already changes nothing more.
	Annotations: sdk.Annotations{Idempotent: new(true)},
	Description: `Delete memories by id (recall and list_memories show ids). All or nothing: if any id is unknown, none is deleted.`,
}

var forgetSchema = sdk.LazySchemaFor[forgetArgs](func(p map[string]*jsonschema.Schema) {
	one := 1.0
	p["id"].Minimum = &one
	p["ids"].Items.Minimum = &one
	maxItems := maxForget
	p["ids"].MaxItems = &maxItems
})

func (s *server) forget(ctx context.Context, e env, args forgetArgs) (*sdk.Result, error) {
	var ids []int64
	if args.ID != 0 {
		ids = append(ids, args.ID)
	}
	for _, id := range args.IDs {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	switch {
	case len(ids) == 0:
		return nil, sdk.Failf("give id (one memory) or ids (several) to forget; recall and list_memories show ids")
	case len(ids) > maxForget:
		return nil, sdk.Failf("%d ids given; forget takes at most %d at a time", len(ids), maxForget)
	}
	for _, id := range ids {
		if id < 1 {
			return nil, sdk.Failf("id %d is not a memory id: ids are positive; nothing was forgotten", id)
		}
	}
	gone, err := e.store.remove(ctx, ids)
	if me := (*missingError)(nil); errors.As(err, &me) {
		return nil, sdk.Failf("%v; nothing was forgotten. recall or list_memories (scope \"all\") shows the ids that exist", me)
	}
	if err != nil {
		return nil, err
	}
	lines := make([]string, len(gone))
	for i, m := range gone {
		lines[i] = fmt.Sprintf("Forgot id %d: %s", m.ID, snippet(m.Content, 80))
	}
	return sdk.TextResult(strings.Join(lines, "\n")), nil
}
