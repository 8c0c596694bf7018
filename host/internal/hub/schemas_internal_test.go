package hub

import (
	"testing"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// TestOwnSchemasAreTheirArgs: each written-out schema of the host's own
// tools is the one its arguments' type makes, so a field added to the
// type is not left out of what the client sees.
func TestOwnSchemasAreTheirArgs(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ written, made string }{
		"activity":            {activitySchema, string(sdk.MustSchemaFor[activityArgs]())},
		"changes":             {changesSchema, string(sdk.MustSchemaFor[changesArgs]())},
		"search_capabilities": {searchSchema, string(sdk.MustSchemaFor[searchArgs]())},
	} {
		if c.written != c.made {
			t.Errorf("%s: the written schema is not its arguments'; write this:\n%s", name, c.made)
		}
	}
}
