package hub

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// Changes that come at once (an upstream server connecting while a plugin
// registers) each describe search_capabilities anew: however they
// interleave, once they are over its description names every server
// there is. Before syncSearch was serialised, a change that had read the
// server list first could swap its older description in last, and the
// tool named servers as they were at start for the rest of the process.
func TestSearchDescriptionFollowsConcurrentChanges(t *testing.T) {
	t.Parallel()
	h, err := New(Config{Roots: []string{t.TempDir()}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	var added []string
	for round := range 40 {
		var wg sync.WaitGroup
		for i := range 4 {
			name := fmt.Sprintf("group%02d%d", round, i)
			added = append(added, name)
			wg.Go(func() {
				box := sdk.NewToolbox(name, sdk.WithVersion("1"))
				box.AddGroup(sdk.GroupSpec{Name: name, Description: "a group"},
					sdk.TypedTool(sdk.ToolSpec{Name: name + "_read", Title: "Read", Kind: sdk.KindRead, Description: "Reads."},
						func(context.Context, *sdk.Request, struct{}) (*sdk.Result, error) { return sdk.TextResult("read"), nil }))
				d, err := box.Describe(context.Background(), sdk.Host{})
				if err != nil {
					t.Error(err)
					return
				}
				if err := h.catalog.Add(name, catalog.InProcess, d, box); err != nil {
					t.Error(err)
					return
				}
				h.syncSearch()
			})
		}
		wg.Wait()
		e, ok := h.catalog.Get(SearchTool)
		if !ok {
			t.Fatalf("round %d: no %s", round, SearchTool)
		}
		for _, name := range added {
			if !strings.Contains(e.Spec.Description, " "+name+",") && !strings.Contains(e.Spec.Description, " "+name+".") {
				t.Fatalf("round %d: %s's description leaves out %s: %q", round, SearchTool, name, e.Spec.Description)
			}
		}
	}
}
