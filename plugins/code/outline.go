package code

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/ignore"
	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

const (
	defaultOutlineDepth = 2
	maxOutlineDepth     = 10
	// maxOutlineFiles bounds a directory outline.
	maxOutlineFiles = 50
	// maxOutlineLines bounds the symbol lines of one call.
	maxOutlineLines = 3000
)

type outlineArgs struct {
	Path  string `json:"path" jsonschema:"file or directory, relative to the first served folder"`
	Depth int    `json:"depth,omitempty" jsonschema:"nesting levels; 1: top level only"`
}

var outlineSpec = sdk.ToolSpec{
	Name:        "outline",
	Title:       "Outline a file's symbols",
	Kind:        sdk.KindRead,
	Description: `List the symbols a Go, Python, JavaScript or TypeScript file declares (tree-sitter), as "kind name (lines a-b): signature" indented by nesting; a directory outlines each supported file in it.`,
}

var outlineSchema = sdk.LazySchemaFor[outlineArgs](func(p map[string]*jsonschema.Schema) {
	sdk.IntDefault(p["depth"], defaultOutlineDepth, 1, maxOutlineDepth)
})

func (s *server) outline(ctx context.Context, r *roots.Roots, args outlineArgs) (*sdk.Result, error) {
	depth := args.Depth
	if depth == 0 {
		depth = defaultOutlineDepth
	}
	if depth < 1 || depth > maxOutlineDepth {
		return nil, sdk.Failf("depth must be between 1 and %d (got %d)", maxOutlineDepth, args.Depth)
	}
	if args.Path == "" {
		return nil, sdk.Failf("path is required: a file to outline, or a directory")
	}
	t, err := resolveRead(r, args.Path)
	if err != nil {
		return nil, err
	}
	shown := display(r, t.Abs)
	fi, err := t.Stat()
	switch {
	case os.IsNotExist(err):
		return nil, sdk.Failf("%s does not exist", shown)
	case err != nil:
		return nil, sdk.Failf("cannot read %s: %v", shown, unwrapPath(err))
	}
	st := newWorkerState()
	defer st.close()
	budget := maxOutlineLines
	if !fi.IsDir() {
		l := languageFor(t.Abs)
		if l == nil {
			return nil, sdk.Failf("%s: outline reads %s; for other files use view_file or search_code", shown, supportedExts())
		}
		if !parses(l) {
			return nil, needsCgo("outline of", l)
		}
		var b strings.Builder
		if err := outlineFile(ctx, st, l, t, shown, depth, &b, &budget); err != nil {
			return nil, err
		}
		return sdk.TextResult(strings.TrimSuffix(b.String(), "\n")), nil
	}

	fsys, name, closeFS, err := t.FS()
	if err != nil {
		return nil, sdk.Failf("cannot list %s: %v", shown, unwrapPath(err))
	}
	defer closeFS()
	opts := defaultBudget()
	opts.MaxDepth = 1
	var files []string
	more := 0
	var unparsed unparsedFiles
	err = ignore.Walk(fsys, name, opts, func(rel string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || languageFor(rel) == nil || unparsed.skip(rel) {
			return nil
		}
		if len(files) == maxOutlineFiles {
			more++
			return nil
		}
		files = append(files, rel)
		return nil
	})
	if le := (*ignore.LimitError)(nil); errors.As(err, &le) {
		err = nil // a directory this large is outlined in part
	}
	if err != nil {
		return nil, sdk.Failf("cannot list %s: %v", shown, unwrapPath(err))
	}
	if len(files) == 0 && unparsed.n > 0 {
		return nil, needsCgo("outline of", unparsed.first)
	}
	if len(files) == 0 {
		return nil, sdk.Failf("%s has no files outline reads directly in it (it is not recursive); it reads %s. Give a file or a subdirectory, or use list_files to see what is there", shown, supportedExts())
	}
	var b strings.Builder
	for i, rel := range files {
		if i > 0 {
			b.WriteByte('\n')
		}
		if budget <= 0 {
			fmt.Fprintf(&b, "(output limit reached; %d more files not outlined: outline them one by one)\n", len(files)-i)
			break
		}
		if err := outlineFile(ctx, st, languageFor(rel), t.Join(rel), joinDisplay(shown, rel), depth, &b, &budget); err != nil {
			if _, ok := err.(*sdk.ToolError); ok {
				fmt.Fprintf(&b, "(%v)\n", err)
				continue
			}
			return nil, err
		}
	}
	if more > 0 {
		fmt.Fprintf(&b, "\n(%d more files left out; at most %d are outlined at once: outline them one by one)\n", more, maxOutlineFiles)
	}
	if unparsed.n > 0 {
		fmt.Fprintf(&b, "\n(%s left out: %s)\n", unparsed, unparsedReason)
	}
	return sdk.TextResult(strings.TrimSuffix(b.String(), "\n")), nil
}

// outlineFile writes one file's outline, spending the line budget.
func outlineFile(ctx context.Context, st *workerState, l *language, t *roots.Target, shown string, depth int, b *strings.Builder, budget *int) error {
	src, status := st.readFile(t)
	switch status {
	case readBinary:
		return sdk.Failf("%s is a binary file", shown)
	case readLarge:
		return sdk.Failf("%s is over 2 MiB; outline reads smaller files only", shown)
	case readFailed:
		return sdk.Failf("cannot read %s", shown)
	}
	syms, err := st.symbols(ctx, l, src, false)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("parse %s: %w", shown, err)
	}
	lines := bytes.Count(src, []byte{'\n'})
	if len(src) > 0 && src[len(src)-1] != '\n' {
		lines++
	}
	fmt.Fprintf(b, "%s (%s, %s)\n", shown, l.name, wording.CountOf(lines, "line", "lines"))
	if len(syms) == 0 {
		b.WriteString("(no symbols)\n")
		return nil
	}
	left := writeSymbols(b, syms, 0, depth, budget)
	if left > 0 {
		fmt.Fprintf(b, "(output limit reached; %d more symbols left out: lower depth, or use find_symbol)\n", left)
	}
	return nil
}

// writeSymbols writes syms at a nesting level and returns how many
// symbols did not fit in the budget.
func writeSymbols(b *strings.Builder, syms []*Symbol, level, depth int, budget *int) int {
	left := 0
	for _, s := range syms {
		if *budget <= 0 {
			left += 1 + countSymbols(s.Children)
			continue
		}
		*budget--
		b.WriteString(strings.Repeat("  ", level))
		name := s.Name
		if s.Qualified != "" {
			name = s.Qualified
		}
		writeSymbolLine(b, s, name)
		if len(s.Children) > 0 && level+1 >= depth {
			fmt.Fprintf(b, " [+%s]", wording.CountOf(len(s.Children), "member", "members"))
		}
		b.WriteByte('\n')
		if level+1 < depth {
			left += writeSymbols(b, s.Children, level+1, depth, budget)
		}
	}
	return left
}

// writeSymbolLine writes "kind name (lines a-b): signature".
func writeSymbolLine(b *strings.Builder, s *Symbol, name string) {
	b.WriteString(s.Kind)
	b.WriteByte(' ')
	b.WriteString(name)
	b.WriteByte(' ')
	b.WriteString(lineRange(s.Start, s.End))
	if s.Signature != "" {
		b.WriteString(": ")
		b.WriteString(s.Signature)
	}
}

func lineRange(a, b int) string {
	if a == b {
		return fmt.Sprintf("(line %d)", a)
	}
	return fmt.Sprintf("(lines %d-%d)", a, b)
}

func countSymbols(syms []*Symbol) int {
	n := len(syms)
	for _, s := range syms {
		n += countSymbols(s.Children)
	}
	return n
}
