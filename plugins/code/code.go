package code

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// Version is the plugin's version, sent in Describe.
const Version = "0.1.0"

// New returns the code plugin, ready for sdk.Serve.
func New() *sdk.Toolbox {
	return newToolbox(defaultInspectTimeout)
}

// defaultInspectTimeout bounds one inspect_python call.
const defaultInspectTimeout = 20 * time.Second

func newToolbox(inspectTimeout time.Duration) *sdk.Toolbox {
	s := &server{inspectTimeout: inspectTimeout}
	box := sdk.NewToolbox("code", sdk.WithVersion(Version),
		sdk.WithDescription("Search code and navigate its symbols in the served folders."))
	box.AddGroup(sdk.GroupSpec{
		Name:        "code",
		Description: "Gitignore-aware regex search over the served folders; symbol outlines and lookups from a real parser (tree-sitter) for Go, Python, JavaScript and TypeScript; live introspection of Python objects.",
		Mode:        sdk.ModeDefault,
		LocalData:   true, // reads and writes this machine's files and stores only
	},
		tool(s, searchSpec, searchSchema, s.searchCode),
		tool(s, outlineSpec, outlineSchema, s.outline),
		tool(s, findSymbolSpec, findSymbolSchema, s.findSymbol),
		s.inspectTool(),
	)
	return box
}

// server holds what the tools share: the resolved roots per host context.
type server struct {
	inspectTimeout time.Duration

	roots roots.Cache
}

// tool declares a typed tool with its input schema.
func tool[In any](s *server, spec sdk.ToolSpec, schema func() json.RawMessage, fn roots.Handler[In]) sdk.Tool {
	spec.InputSchema = schema()
	return roots.TypedTool(&s.roots, spec, fn)
}

func boolDefault(p *jsonschema.Schema, def bool) {
	p.Default = json.RawMessage(fmt.Sprint(def))
}

// resolveRead turns roots' refusals into tool errors. The Target it
// returns is the only way the tools reach the path.
func resolveRead(r *roots.Roots, p string) (*roots.Target, error) {
	t, err := r.Read(p)
	if err != nil {
		return nil, sdk.Failf("%v", err)
	}
	return t, nil
}

// resultLimit is a limit argument made a limit: def when left out
// (0), at most most. A negative one is refused.
func resultLimit(n, def, most int) (int, error) {
	if n < 0 {
		return 0, sdk.Failf("limit must be at least 1 (got %d); leave it out for the default of %d", n, def)
	}
	if n == 0 {
		n = def
	}
	return min(n, most), nil
}

// display is how a path is shown: relative to the first served folder when
// inside it (so it can be passed back to any tool as is), absolute otherwise.
func display(r *roots.Roots, abs string) string {
	return r.Rel(abs)
}

// joinDisplay shows the path rel (slash-separated, relative to dir) under
// dirShown, the display form of dir.
func joinDisplay(dirShown, rel string) string {
	if dirShown == "." {
		return rel
	}
	if strings.HasSuffix(dirShown, "/") {
		return dirShown + rel
	}
	return dirShown + "/" + rel
}
