package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// Version is the plugin's version, sent in Describe.
const Version = "0.1.0"

// New returns the memory plugin, ready for sdk.Serve.
func New() *sdk.Toolbox {
	s := &server{}
	box := sdk.NewToolbox("memory", sdk.WithVersion(Version),
		sdk.WithDescription("Long-term memory: remember notes, recall them by full-text search."))
	box.AddGroup(sdk.GroupSpec{
		Name:        "memory",
		Description: "Remember notes per project or globally, recall them ranked by relevance (SQLite FTS5, bm25), list and forget them.",
		Mode:        sdk.ModeDefault,
		LocalData:   true, // reads and writes this machine's files and stores only
	},
		tool(s, rememberSpec, rememberSchema, s.remember),
		tool(s, forgetSpec, forgetSchema, s.forget),
		tool(s, recallSpec, recallSchema, s.recall),
		tool(s, listSpec, listSchema, s.listMemories),
	)
	return box
}

// dbPath is where the memory database lives under a config dir.
func dbPath(configDir string) string {
	return filepath.Join(configDir, "memory", "memory.db")
}

// server holds what the tools share: the open database and the resolved
// roots per host context.
type server struct {
	roots roots.Cache

	// mu guards cur, the database of the current config dir, opened on
	// first use.
	mu  sync.Mutex
	cur *handle
}

// handle is an open store and the calls using it, so that a store replaced
// after the config dir changed is closed only once its last call is done.
type handle struct {
	st      *store
	refs    int
	retired bool
}

// acquire returns the store for the host's config dir, opening it (and
// retiring the store of a previous config dir) when needed, and the func
// that releases it.
func (s *server) acquire(ctx context.Context, h sdk.Host) (*store, func(), error) {
	if h.ConfigDir == "" {
		return nil, nil, sdk.Failf("memory is unavailable: the host sent no config dir to keep the memory database in; start ramabana-mcp with a config dir (--cfg)")
	}
	if !filepath.IsAbs(h.ConfigDir) {
		return nil, nil, sdk.Failf("memory is unavailable: the config dir %q is not an absolute path", h.ConfigDir)
	}
	path := dbPath(filepath.Clean(h.ConfigDir))
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil || s.cur.st.path != path {
		st, err := openStore(ctx, path)
		if err != nil {
			// Not a database, a newer schema, no permission: the user
			// can fix each, and the model can tell them how.
			return nil, nil, sdk.Failf("cannot open the memory database %s: %v", path, err)
		}
		if old := s.cur; old != nil {
			old.retired = true
			if old.refs == 0 {
				_ = old.st.Close()
			}
		}
		s.cur = &handle{st: st}
	}
	hd := s.cur
	hd.refs++
	return hd.st, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if hd.refs--; hd.refs == 0 && hd.retired {
			_ = hd.st.Close()
		}
	}, nil
}

// env is what a tool body gets besides its arguments.
type env struct {
	roots *roots.Roots
	store *store
}

// handler is a tool's body: arguments decoded, roots resolved, store open.
type handler[In any] func(ctx context.Context, e env, args In) (*sdk.Result, error)

// tool declares a typed tool whose sdk.Failf failures become error results
// and whose other errors are faults. The schemas are declared with
// sdk.LazySchemaFor, so they are built by the first New, not at init by
// every process that links the package.
func tool[In any](s *server, spec sdk.ToolSpec, schema func() json.RawMessage, fn handler[In]) sdk.Tool {
	spec.InputSchema = schema()
	return sdk.TypedTool(spec, func(ctx context.Context, req *sdk.Request, args In) (*sdk.Result, error) {
		res, err := run(ctx, s, req.Host, args, fn)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec.Name, err)
		}
		return res, nil
	})
}

func run[In any](ctx context.Context, s *server, h sdk.Host, args In, fn handler[In]) (*sdk.Result, error) {
	r, err := s.roots.For(h)
	if err != nil {
		return nil, fmt.Errorf("served folders: %w", err)
	}
	st, release, err := s.acquire(ctx, h)
	if err != nil {
		return nil, err
	}
	defer release()
	return fn(ctx, env{roots: r, store: st}, args)
}

func intBounds(p *jsonschema.Schema, def int, minimum, maximum float64) {
	if def != 0 {
		p.Default = json.RawMessage(fmt.Sprint(def))
	}
	p.Minimum = &minimum
	if maximum > 0 {
		p.Maximum = &maximum
	}
}
