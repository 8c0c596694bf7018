package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	lspc "github.com/ramabana/ramabana-mcp/internal/lsp"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// Version is the plugin's version, sent in Describe.
const Version = "0.1.0"

// Plugin is the lsp plugin: a Toolbox, and the language servers it runs.
type Plugin struct {
	*sdk.Toolbox
	g *group
}

// Close stops every language server the plugin started. sdk.Serve's exit
// does it too.
func (p *Plugin) Close() { p.g.pool.closeAll() }

// New returns the lsp plugin, ready for sdk.Serve.
func New() *Plugin {
	g := &group{environ: sdk.ChildEnv, cacheDir: privateDir()}
	box := sdk.NewToolbox("lsp", sdk.WithVersion(Version),
		sdk.WithDescription("Code intelligence from the language servers users have: references, definitions, types, diagnostics, and renames and symbol edits."))
	box.AddGroup(sdk.GroupSpec{
		Name:        "lsp",
		Description: "References, definitions, types and documentation, and diagnostics from real language servers (gopls, pyright, typescript-language-server), started at the first call and sandboxed; renames across the workspace and symbol edits, applied atomically.",
		Mode:        sdk.ModeDefault,
		LocalData:   true, // reads and writes this machine's files only
	},
		tool(g, referencesSpec, referencesSchema, g.findReferences),
		tool(g, definitionSpec, definitionSchema, g.findDefinition),
		tool(g, symbolInfoSpec, symbolInfoSchema, g.symbolInfo),
		tool(g, diagnosticsSpec, diagnosticsSchema, g.diagnostics),
		tool(g, renameSpec, renameSchema, g.rename),
		tool(g, replaceBodySpec, replaceBodySchema, g.replaceBody),
		tool(g, insertBeforeSpec, insertSchema, g.insertBefore),
		tool(g, insertAfterSpec, insertSchema, g.insertAfter),
	)
	sdk.AtExit(g.pool.closeAll)
	return &Plugin{Toolbox: box, g: g}
}

// group holds what the tools share.
type group struct {
	roots roots.Cache
	pool  pool

	fallbackOnce sync.Once
	fallback     sdk.Group // the code group, for tree-sitter answers

	// environ is the environment the servers start from (sdk.ChildEnv),
	// and cacheDir their private folder (privateDir); tests set their own.
	environ  func() []string
	cacheDir string

	// beforeWrite, if set, runs before an edit's files are written (a
	// test's way to change one first).
	beforeWrite func()
}

// call is what a handler gets: the call's request, the served folders,
// and the file it is about.
type call struct {
	req *sdk.Request
	r   *roots.Roots
	// file is the file the call names, read whole.
	file *fileRef
	lang *language
	cfg  *config
}

// fileRef is a file inside a served folder, as read for a call.
type fileRef struct {
	target  *roots.Target
	abs     string
	display string
	data    []byte
}

// handler is a tool's body, run with its server held.
type handler[In any] func(ctx context.Context, c *call, ss *session, args In) (*sdk.Result, error)

// tool declares a tool whose arguments name a file (pathOf) and whose
// handler runs with that file's language server held.
func tool[In pathArgs](g *group, spec sdk.ToolSpec, schema func() json.RawMessage, fn handler[In]) sdk.Tool {
	spec.InputSchema = schema()
	return sdk.TypedTool(spec, func(ctx context.Context, req *sdk.Request, args In) (*sdk.Result, error) {
		r, err := g.roots.For(req.Host)
		if err != nil {
			return nil, fmt.Errorf("%s: served folders: %w", spec.Name, err)
		}
		c := &call{req: req, r: r}
		if c.file, err = readFile(r, args.path()); err != nil {
			return nil, err
		}
		if c.lang = languageOf(c.file.abs); c.lang == nil {
			return nil, sdk.Failf("%s is not a file of a language the language servers here cover (%s, by file extension)", c.file.display, languageNames())
		}
		root, ok := r.Root(c.file.abs)
		if !ok {
			return nil, sdk.Failf("%s is outside the served folders; language servers work on the served folders' files", c.file.display)
		}
		if c.cfg, err = loadConfig(req.Host.ConfigDir); err != nil {
			return nil, err
		}
		srv := g.pool.get(c.lang, root)
		var res *sdk.Result
		var ss *session
		// A server that ended just before the call (its end not yet
		// noticed) or during it is started again for a second try:
		// nothing is written before a server has answered.
		for try := 0; ; try++ {
			ss, err = srv.acquire(ctx, req.Host, g.environ(), r.List(), g.cacheDir, req.Events)
			if err != nil {
				if tool := (*sdk.ToolError)(nil); errors.As(err, &tool) && spec.Kind == sdk.KindRead {
					return g.treeSitter(ctx, c, spec.Name, args, err)
				}
				return nil, err
			}
			res, err = func() (*sdk.Result, error) {
				defer ss.release(c.cfg.idle) // a panic too
				return fn(ctx, c, ss, args)
			}()
			if ee := (*lspc.ExitError)(nil); try == 0 && errors.As(err, &ee) && ctx.Err() == nil {
				// The client fails its calls as soon as the server's
				// output ends, and is done once the process is reaped:
				// the next acquire must see it done to start anew.
				select {
				case <-ss.c.Done():
				case <-ctx.Done():
				}
				continue
			}
			break
		}
		if err != nil {
			if ee := (*lspc.ExitError)(nil); errors.As(err, &ee) {
				return nil, sdk.Failf("the %s language server ended during the call (%v); the next call starts it again", c.lang.title, ee)
			}
			if re := (*lspc.ResponseError)(nil); errors.As(err, &re) {
				return nil, sdk.Failf("the %s language server refused: %s", c.lang.title, re.Message)
			}
			return nil, err
		}
		if len(ss.notes) > 0 && res != nil {
			for _, n := range ss.notes {
				res.Content = append(res.Content, sdk.Content{Text: "Note: " + n + "."})
			}
		}
		return res, nil
	})
}

// pathArgs are arguments that name a file.
type pathArgs interface{ path() string }

// symbolArgs name a symbol in a file: by name (or name path), by line, or
// both.
type symbolArgs struct {
	Path   string `json:"path" jsonschema:"file, relative to the first served folder"`
	Symbol string `json:"symbol,omitempty" jsonschema:"the symbol's name (\"Run\") or name path (\"Server/Run\"); with line, the name as written on that line"`
	Line   int    `json:"line,omitempty" jsonschema:"1-based line where the symbol is declared or used; without symbol, the symbol declared on that line (or its first name)"`
}

func (a symbolArgs) path() string { return a.Path }

// symbolSchema adds symbolArgs' constraints.
func symbolSchema(p map[string]*jsonschema.Schema) {
	p["path"].MinLength = new(1)
	p["line"].Minimum = new(float64(1))
}

// readFile reads the file p names, inside the served folders (or outside
// with read-outside, for the error it then gets), as UTF-8 text.
func readFile(r *roots.Roots, p string) (*fileRef, error) {
	t, err := r.Read(p)
	if err != nil {
		return nil, sdk.Failf("%v", err)
	}
	display := r.Rel(t.Abs)
	f, err := t.Open()
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, sdk.Failf("%s does not exist", display)
		}
		return nil, sdk.Failf("cannot read %s: %v", display, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, sdk.Failf("cannot read %s: %v", display, err)
	}
	switch {
	case fi.IsDir():
		return nil, sdk.Failf("%s is a directory; give a source file", display)
	case !fi.Mode().IsRegular():
		return nil, sdk.Failf("%s is not a regular file", display)
	case fi.Size() > maxFileSize:
		return nil, sdk.Failf("%s is too large (%d bytes); the language tools read files up to %d MiB", display, fi.Size(), maxFileSize>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, sdk.Failf("cannot read %s: %v", display, err)
	}
	if len(data) > maxFileSize {
		return nil, sdk.Failf("%s is too large; the language tools read files up to %d MiB", display, maxFileSize>>20)
	}
	if !utf8.Valid(data) {
		return nil, sdk.Failf("%s is not UTF-8 text; the language tools read UTF-8 source files only", display)
	}
	return &fileRef{target: t, abs: t.Abs, display: display, data: data}, nil
}

const maxFileSize = 16 << 20

// privateDir is the language servers' private folder: their caches and
// temporary files, the only place they may write.
func privateDir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "ramabana-mcp", "lsp")
}
