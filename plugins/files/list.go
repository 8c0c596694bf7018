package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/ignore"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

const (
	defaultMaxResults = 1000
	maxMaxResults     = 10000
	// maxCounted bounds the walk after the cap, which only counts what is
	// left out.
	maxCounted = 100000
)

type listArgs struct {
	Path       string `json:"path,omitempty" jsonschema:"Directory to list: relative to the first served folder, or absolute inside a served folder. Default \".\" (the first served folder)."`
	Glob       string `json:"glob,omitempty" jsonschema:"Only entries whose path relative to the listed directory matches this glob; * ? [abc] {a,b} and ** are supported. A glob without '/' also matches base names at any depth. Default: every entry."`
	Depth      int    `json:"depth,omitempty" jsonschema:"How deep to go: 1 lists the directory's own entries, 2 their children too. Default 0, no limit."`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"Most entries to list. Default 1000, at most 10000."`
	MaxFiles   int    `json:"max_files,omitempty" jsonschema:"Walk budget: stop after reading this many files and directories (ignored ones included). Default 20000, at most 200000."`
	MaxSeconds int    `json:"max_seconds,omitempty" jsonschema:"Walk budget: stop after this many seconds. Default 10, at most 60."`
}

var listSpec = sdk.ToolSpec{
	Name:  "list_files",
	Title: "List files",
	Kind:  sdk.KindRead,
	Description: `List the files and directories under a directory, recursively, leaving out what git ignores (.gitignore files at every level, .git/info/exclude) and the .git directory.

Output: one path per line, relative to the listed directory, with '/' as separator; directories end with '/'. Entries are sorted by path, depth first: each directory comes just before its contents. Symlinks are listed, not followed.

glob filters entries by their relative path ("**/*_test.go", "cmd/*", "*.{js,ts}"); a glob without '/' also matches base names at any depth, so "*.go" finds Go files everywhere. depth limits recursion (1 = the directory's own entries; default unlimited). At most max_results entries are listed (default 1000); when more match, a last line says how many were left out, e.g. "(1000 entries shown; 234 more left out: narrow path or glob, or set depth or max_results)". The walk stops after reading max_files entries (default 20000) or after max_seconds (default 10), and then says so in a last line; /proc, /sys and /dev are never walked.`,
}

var listSchema = sdk.SchemaFor[listArgs](func(p map[string]*jsonschema.Schema) {
	p["path"].Default = []byte(`"."`)
	sdk.IntDefault(p["depth"], 0, 0, 0)
	sdk.IntDefault(p["max_results"], defaultMaxResults, 1, maxMaxResults)
	sdk.IntDefault(p["max_files"], ignore.DefaultMaxFiles, 1, ignore.MaxMaxFiles)
	sdk.IntDefault(p["max_seconds"], ignore.DefaultMaxSeconds, 1, ignore.MaxMaxSeconds)
})

func (s *server) listFiles(ctx context.Context, r *roots.Roots, args listArgs) (*sdk.Result, error) {
	if args.Path == "" {
		args.Path = "."
	}
	if args.Depth < 0 || args.MaxResults < 0 {
		return nil, sdk.Failf("depth and max_results must not be negative (got depth=%d, max_results=%d)", args.Depth, args.MaxResults)
	}
	limit := args.MaxResults
	if limit == 0 {
		limit = defaultMaxResults
	}
	limit = min(limit, maxMaxResults)
	glob := args.Glob
	if glob != "" && !doublestar.ValidatePattern(glob) {
		return nil, sdk.Failf("glob %q is not a valid pattern (check its brackets and braces)", glob)
	}
	baseNames := glob != "" && !strings.Contains(glob, "/")

	opts := ignore.Options{MaxDepth: args.Depth}
	if err := ignore.Budget(&opts, args.MaxFiles, args.MaxSeconds); err != nil {
		return nil, sdk.Failf("%v", err)
	}
	t, err := resolveRead(r, args.Path)
	if err != nil {
		return nil, err
	}
	display := r.Rel(t.Abs)
	fi, err := t.Stat()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, sdk.Failf("%s does not exist", display)
	case err != nil:
		return nil, sdk.Failf("cannot list %s: %v", display, unwrapPath(err))
	case !fi.IsDir():
		return nil, sdk.Failf("%s is a file, not a directory; use view_file to read it", display)
	}
	// The walk reads through the served folder's root (or, outside the
	// roots, a root on the directory itself), never by absolute name.
	fsys, name, closeFS, err := t.FS()
	if err != nil {
		return nil, sdk.Failf("cannot list %s: %v", display, unwrapPath(err))
	}
	defer closeFS()
	opts.Skip = roots.PseudoDirs(t.Abs)

	var b strings.Builder
	shown, more, seen := 0, 0, 0
	err = ignore.Walk(fsys, name, opts, func(rel string, d fs.DirEntry) error {
		if seen++; seen%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if glob != "" && !doublestar.MatchUnvalidated(glob, rel) &&
			(!baseNames || !doublestar.MatchUnvalidated(glob, path.Base(rel))) {
			return nil
		}
		if shown == limit {
			if more++; more >= maxCounted {
				return filepath.SkipAll
			}
			return nil
		}
		if shown > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(rel)
		if d.IsDir() {
			b.WriteByte('/')
		}
		shown++
		return nil
	})
	var stopped *ignore.LimitError
	if errors.As(err, &stopped) {
		err = nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, sdk.Failf("cannot list %s: %v", display, unwrapPath(err))
	}
	switch {
	case shown == 0 && glob != "":
		fmt.Fprintf(&b, "(nothing in %s matches glob %q)", display, glob)
	case shown == 0:
		fmt.Fprintf(&b, "(%s has no entries that git does not ignore)", display)
	case more > 0:
		entries, atLeast := "entries", ""
		if shown == 1 {
			entries = "entry"
		}
		if more >= maxCounted {
			atLeast = "at least "
		}
		fmt.Fprintf(&b, "\n(%d %s shown; %s%d more left out: narrow path or glob, or set depth or max_results)", shown, entries, atLeast, more)
	}
	if stopped != nil {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "(%s)", stopped.Note())
	}
	return sdk.TextResult(b.String()), nil
}
