package lsp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	lspc "github.com/ramabana/ramabana-mcp/internal/lsp"
	"github.com/ramabana/ramabana-mcp/plugins/code"
	"github.com/ramabana/ramabana-mcp/plugins/internal/hashline"
	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
)

const (
	defaultReferences = 200
	maxReferences     = 5000
	// maxDeclLines bounds the lines of a definition shown.
	maxDeclLines = 80
	// maxHover bounds a hover's text.
	maxHover = 16 << 10
	// maxLinks bounds the definitions shown; maxDiagnostics the
	// diagnostics.
	maxLinks       = 20
	maxDiagnostics = 200
)

type referencesArgs struct {
	symbolArgs
	IncludeDeclaration *bool `json:"include_declaration,omitempty" jsonschema:"list the declaration too"`
	Limit              int   `json:"limit,omitempty" jsonschema:"most lines shown"`
}

var referencesSpec = sdk.ToolSpec{
	Name:        "find_references",
	Title:       "Find references",
	Kind:        sdk.KindRead,
	Description: `Find every reference to a symbol across the workspace, as the language server resolves it (gopls, pyright, typescript-language-server): calls, uses, implementations of the same name are told apart from same-named others. Name the symbol by path and symbol (name or name path such as "Server/Run"), by path and line, or both. Lines come as "lineno|hash|content" under each file, so an edit can follow.`,
}

var referencesSchema = sdk.LazySchemaFor[referencesArgs](func(p map[string]*jsonschema.Schema) {
	symbolSchema(p)
	p["include_declaration"].Default = []byte("true")
	sdk.IntDefault(p["limit"], defaultReferences, 1, maxReferences)
})

func (g *group) findReferences(ctx context.Context, c *call, ss *session, args referencesArgs) (*sdk.Result, error) {
	sp, err := g.prepareSpot(ctx, c, ss, args.symbolArgs, false, true)
	if err != nil {
		return nil, err
	}
	limit := cmp.Or(args.Limit, defaultReferences)
	withDecl := args.IncludeDeclaration == nil || *args.IncludeDeclaration
	locs, err := ss.c.References(ctx, lspc.URIFromPath(c.file.abs), sp.pos, withDecl)
	if err != nil {
		return nil, err
	}
	places := make([]place, 0, len(locs))
	for _, l := range locs {
		places = append(places, placeOf(l.URI, l.Range))
	}
	var b strings.Builder
	files := countFiles(places)
	fmt.Fprintf(&b, "%s to %s at %s, in %s", wording.Count(len(places), "reference"), sp.name, sp.where(c.file.display), wording.Count(files, "file"))
	if withDecl {
		b.WriteString(" (the declaration among them)")
	}
	if len(places) == 0 {
		b.WriteString(".")
		return sdk.TextResult(b.String()), nil
	}
	b.WriteString(":\n")
	g.writePlaces(c, ss, &b, places, limit)
	return sdk.TextResult(strings.TrimRight(b.String(), "\n")), nil
}

type definitionArgs struct {
	symbolArgs
}

var definitionSpec = sdk.ToolSpec{
	Name:        "find_definition",
	Title:       "Go to definition",
	Kind:        sdk.KindRead,
	Description: `Find where a symbol used in a file is defined, as the language server resolves it (across files, packages and dependencies), and show the declaration as "lineno|hash|content" lines. Name the symbol by path and symbol (name or name path), by path and line, or both.`,
}

var definitionSchema = sdk.LazySchemaFor[definitionArgs](symbolSchema)

func (g *group) findDefinition(ctx context.Context, c *call, ss *session, args definitionArgs) (*sdk.Result, error) {
	sp, err := g.prepareSpot(ctx, c, ss, args.symbolArgs, false, false)
	if err != nil {
		return nil, err
	}
	links, err := ss.c.Definition(ctx, lspc.URIFromPath(c.file.abs), sp.pos)
	if err != nil {
		return nil, err
	}
	if len(links) == 0 {
		return sdk.TextResult(fmt.Sprintf("The %s language server knows no definition of %s at %s.", c.lang.title, sp.name, sp.where(c.file.display))), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Definition of %s (used at %s):", sp.name, sp.where(c.file.display))
	if len(links) > maxLinks {
		fmt.Fprintf(&b, " %d places, the first %d shown:", len(links), maxLinks)
		links = links[:maxLinks]
	}
	for _, l := range links {
		p := placeOf(l.TargetURI, l.TargetSelectionRange)
		decl := placeOf(l.TargetURI, l.TargetRange)
		if decl.line == decl.last {
			decl = g.declarationOf(ctx, c, ss, l.TargetSelectionRange.Start, p, decl)
		}
		fmt.Fprintf(&b, "\n%s:%d\n", c.r.Rel(p.abs), p.line)
		g.writeLines(c, ss, &b, p.abs, decl.line, decl.last, maxDeclLines)
	}
	return sdk.TextResult(strings.TrimRight(b.String(), "\n")), nil
}

// declarationOf widens a definition that names only the symbol (at name,
// on p's line) to the declaration whose name that is, from the target
// file's symbols, when that file is inside the served folders and of the
// same language.
func (g *group) declarationOf(ctx context.Context, c *call, ss *session, name lspc.Position, p, decl place) place {
	if languageOf(p.abs) != c.lang {
		return decl
	}
	f, err := readFile(c.r, p.abs)
	if err != nil || !f.target.Inside() {
		return decl
	}
	if _, err := ss.open(f.abs, f.data); err != nil {
		return decl
	}
	ds, err := ss.c.DocumentSymbols(ctx, lspc.URIFromPath(f.abs))
	if err != nil {
		return decl
	}
	for _, s := range flatten(ds, nil, nil) {
		if s.sym.SelectionRange.Start == name {
			r := s.sym.Range
			return place{abs: p.abs, line: int(r.Start.Line) + 1, last: lastLine(r)}
		}
	}
	return decl
}

type symbolInfoArgs struct {
	symbolArgs
}

var symbolInfoSpec = sdk.ToolSpec{
	Name:        "symbol_info",
	Title:       "Type and documentation",
	Kind:        sdk.KindRead,
	Description: `The type (signature) and documentation of a symbol, as the language server's hover shows it: what an expression is, what a function takes and returns. Name the symbol by path and symbol (name or name path), by path and line, or both.`,
}

var symbolInfoSchema = sdk.LazySchemaFor[symbolInfoArgs](symbolSchema)

func (g *group) symbolInfo(ctx context.Context, c *call, ss *session, args symbolInfoArgs) (*sdk.Result, error) {
	sp, err := g.prepareSpot(ctx, c, ss, args.symbolArgs, false, false)
	if err != nil {
		return nil, err
	}
	h, err := ss.c.Hover(ctx, lspc.URIFromPath(c.file.abs), sp.pos)
	if err != nil {
		return nil, err
	}
	if h == nil || strings.TrimSpace(h.Contents.Value) == "" {
		return sdk.TextResult(fmt.Sprintf("The %s language server has nothing to say of %s at %s.", c.lang.title, sp.name, sp.where(c.file.display))), nil
	}
	text := strings.TrimSpace(h.Contents.Value)
	if len(text) > maxHover {
		text = text[:maxHover] + "\n…"
	}
	return sdk.TextResult(fmt.Sprintf("%s at %s:\n%s", sp.name, sp.where(c.file.display), text)), nil
}

type diagnosticsArgs struct {
	Path string `json:"path" jsonschema:"file, relative to the first served folder"`
}

func (a diagnosticsArgs) path() string { return a.Path }

var diagnosticsSpec = sdk.ToolSpec{
	Name:        "diagnostics",
	Title:       "Diagnostics of a file",
	Kind:        sdk.KindRead,
	Description: `The errors and warnings the language server finds in a file as it is on disk now (type errors, undefined names, unused imports): call it after an edit to see what broke. Each comes with its line as "lineno|hash|content".`,
}

var diagnosticsSchema = sdk.LazySchemaFor[diagnosticsArgs](func(p map[string]*jsonschema.Schema) {
	p["path"].MinLength = new(1)
})

// Diagnostics settle when no new publication came for settleQuiet after
// the current one, within settleMost.
const (
	settleQuiet = 300 * time.Millisecond
	settleMost  = 30 * time.Second
	diagWait    = 60 * time.Second
)

func (g *group) diagnostics(ctx context.Context, c *call, ss *session, args diagnosticsArgs) (*sdk.Result, error) {
	if err := ss.refresh(); err != nil {
		return nil, err
	}
	text, err := ss.open(c.file.abs, c.file.data)
	if err != nil {
		return nil, err
	}
	if err := ss.awaitLoaded(ctx); err != nil {
		return nil, err
	}
	diags, err := ss.fileDiagnostics(ctx, c)
	if err != nil {
		return nil, err
	}
	diags = slices.Clone(diags)
	slices.SortStableFunc(diags, func(a, b lspc.Diagnostic) int {
		return cmp.Or(cmp.Compare(a.Range.Start.Line, b.Range.Start.Line), cmp.Compare(sevRank(a.Severity), sevRank(b.Severity)))
	})
	counts := map[lspc.DiagnosticSeverity]int{}
	for _, dg := range diags {
		counts[dg.Severity]++
	}
	var b strings.Builder
	if len(diags) == 0 {
		fmt.Fprintf(&b, "%s: the %s language server finds no problems.", c.file.display, c.lang.title)
		return sdk.TextResult(b.String()), nil
	}
	fmt.Fprintf(&b, "%s: %s, %s, %s:", c.file.display,
		wording.Count(counts[lspc.SeverityError], "error"), wording.Count(counts[lspc.SeverityWarning], "warning"),
		wording.Count(len(diags)-counts[lspc.SeverityError]-counts[lspc.SeverityWarning], "other"))
	lines := splitLines(text.Content())
	shownLine, shown := -1, 0
	for _, dg := range diags {
		line := int(dg.Range.Start.Line) + 1
		if shown == maxDiagnostics {
			fmt.Fprintf(&b, "\n… %s more not shown; fix these first", wording.Count(len(diags)-shown, "diagnostic"))
			break
		}
		shown++
		if line != shownLine && line >= 1 && line <= len(lines) {
			b.WriteString("\n")
			b.WriteString(hashline.Line(line, lines[line-1]))
			shownLine = line
		}
		col := 1
		if off, err := text.Offset(dg.Range.Start, ss.c.Encoding()); err == nil {
			if p, err := text.Position(off, lspc.UTF8); err == nil {
				col = p.Character + 1
			}
		}
		sev := dg.Severity.String()
		if dg.Severity == 0 {
			sev = "problem"
		}
		fmt.Fprintf(&b, "\n  %d:%d %s: %s", line, col, sev, strings.ReplaceAll(strings.TrimSpace(dg.Message), "\n", "\n    "))
		var src []string
		if dg.Source != "" {
			src = append(src, dg.Source)
		}
		if dg.Code != "" {
			src = append(src, string(dg.Code))
		}
		if len(src) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(src, " "))
		}
	}
	return sdk.TextResult(b.String()), nil
}

// fileDiagnostics are the diagnostics of the call's file, open with its
// current content: asked for when the server answers requests for them
// (gopls, told to; pyright), from tsserver itself for
// typescript-language-server, else the last of those the server publishes
// for that content, settled (servers publish in steps, syntax then types).
func (ss *session) fileDiagnostics(ctx context.Context, c *call) ([]lspc.Diagnostic, error) {
	uri := lspc.URIFromPath(c.file.abs)
	if ss.c.PullsDiagnostics() {
		return ss.c.PullDiagnostics(ctx, uri)
	}
	if ss.s.lang == typescript {
		return tsDiagnostics(ctx, ss, c.file.abs)
	}
	wctx, cancel := context.WithTimeout(ctx, diagWait)
	defer cancel()
	d, err := ss.c.AwaitDiagnostics(wctx, uri, nil)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, sdk.Failf("the %s language server published no diagnostics for %s within %v", c.lang.title, c.file.display, diagWait)
		}
		return nil, err
	}
	deadline := time.Now().Add(settleMost)
	for time.Now().Before(deadline) {
		qctx, qcancel := context.WithTimeout(ctx, settleQuiet)
		seq := d.Seq
		next, err := ss.c.AwaitDiagnostics(qctx, uri, func(f lspc.FileDiagnostics) bool { return f.Seq > seq })
		qcancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			break
		}
		d = next
	}
	return d.Diagnostics, nil
}

// tsDiagnostics asks tsserver, through typescript-language-server's
// typescript.tsserverRequest command, for a file's syntactic and semantic
// diagnostics now: typescript-language-server publishes them in steps,
// without a version, so a publication cannot tell when it is complete.
func tsDiagnostics(ctx context.Context, ss *session, abs string) ([]lspc.Diagnostic, error) {
	var out []lspc.Diagnostic
	for _, cmd := range []string{"syntacticDiagnosticsSync", "semanticDiagnosticsSync"} {
		var raw json.RawMessage
		params := map[string]any{"command": "typescript.tsserverRequest", "arguments": []any{cmd, map[string]any{"file": lspc.URIFromPath(abs)}}}
		if err := ss.c.Call(ctx, "workspace/executeCommand", params, &raw); err != nil {
			return nil, err
		}
		var res struct {
			Body *[]tsDiagnostic `json:"body"`
		}
		var list []tsDiagnostic
		if json.Unmarshal(raw, &res) == nil && res.Body != nil {
			list = *res.Body
		} else if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("tsserver's %s answer: %w", cmd, err)
		}
		for _, d := range list {
			out = append(out, d.diagnostic())
		}
	}
	return out, nil
}

// tsDiagnostic is a diagnostic as tsserver gives it: 1-based lines, and
// 1-based offsets in UTF-16 units.
type tsDiagnostic struct {
	Start    struct{ Line, Offset int } `json:"start"`
	End      struct{ Line, Offset int } `json:"end"`
	Text     string                     `json:"text"`
	Code     int                        `json:"code"`
	Category string                     `json:"category"`
	Source   string                     `json:"source"`
}

func (d tsDiagnostic) diagnostic() lspc.Diagnostic {
	sev := map[string]lspc.DiagnosticSeverity{"error": lspc.SeverityError, "warning": lspc.SeverityWarning, "suggestion": lspc.SeverityHint, "message": lspc.SeverityInformation}[d.Category]
	src := cmp.Or(d.Source, "typescript")
	return lspc.Diagnostic{
		Range: lspc.Range{
			Start: lspc.Position{Line: max(d.Start.Line-1, 0), Character: max(d.Start.Offset-1, 0)},
			End:   lspc.Position{Line: max(d.End.Line-1, 0), Character: max(d.End.Offset-1, 0)},
		},
		Severity: sev,
		Code:     lspc.IntOrString(fmt.Sprint(d.Code)),
		Source:   src,
		Message:  d.Text,
	}
}

func sevRank(s lspc.DiagnosticSeverity) int {
	if s == 0 {
		return 5
	}
	return int(s)
}

// prepareSpot brings the server up to date with the disk, opens the call's
// file, waits for the workspace when whole asks for it, and locates the
// symbol.
func (g *group) prepareSpot(ctx context.Context, c *call, ss *session, args symbolArgs, needDecl, whole bool) (*spot, error) {
	if err := ss.refresh(); err != nil {
		return nil, err
	}
	text, err := ss.open(c.file.abs, c.file.data)
	if err != nil {
		return nil, err
	}
	if whole || ss.s.lang == typescript {
		if err := ss.awaitLoaded(ctx); err != nil {
			return nil, err
		}
	}
	return locate(ctx, c, ss, text, args, needDecl)
}

// place is a range of lines of a file, 1-based, last included.
type place struct {
	abs        string
	line, last int
}

func placeOf(uri string, r lspc.Range) place {
	abs, err := lspc.PathFromURI(uri)
	if err != nil {
		abs = uri
	}
	return place{abs: abs, line: int(r.Start.Line) + 1, last: lastLine(r)}
}

// lastLine is the 1-based last line r covers: a range that ends at a
// line's start does not cover that line.
func lastLine(r lspc.Range) int {
	last := int(r.End.Line) + 1
	if r.End.Character == 0 && r.End.Line > r.Start.Line {
		last--
	}
	return last
}

func countFiles(places []place) int {
	seen := map[string]bool{}
	for _, p := range places {
		seen[p.abs] = true
	}
	return len(seen)
}

// writePlaces writes places under their files: the files inside the
// served folders first, by path, lines in order, each line once; at most
// limit lines, then what was left out.
func (g *group) writePlaces(c *call, ss *session, b *strings.Builder, places []place, limit int) {
	byFile := map[string][]int{}
	for _, p := range places {
		byFile[p.abs] = append(byFile[p.abs], p.line)
	}
	files := slices.Collect(func(yield func(string) bool) {
		for f := range byFile {
			if !yield(f) {
				return
			}
		}
	})
	slices.SortFunc(files, func(a, b string) int {
		_, ina := c.r.Root(a)
		_, inb := c.r.Root(b)
		if ina != inb {
			if ina {
				return -1
			}
			return 1
		}
		return cmp.Compare(c.r.Rel(a), c.r.Rel(b))
	})
	shown, leftLines, leftFiles := 0, 0, 0
	for _, f := range files {
		lines := byFile[f]
		slices.Sort(lines)
		lines = slices.Compact(lines)
		if shown >= limit {
			leftLines += len(lines)
			leftFiles++
			continue
		}
		content := g.fileLines(c, ss, f)
		b.WriteString(c.r.Rel(f))
		b.WriteString("\n")
		for i, n := range lines {
			if shown >= limit {
				leftLines += len(lines) - i
				break
			}
			shown++
			if content != nil && n >= 1 && n <= len(content) {
				b.WriteString(hashline.Line(n, content[n-1]))
			} else {
				fmt.Fprintf(b, "%d", n)
			}
			b.WriteString("\n")
		}
	}
	if leftLines > 0 {
		fmt.Fprintf(b, "… %s left out (%s not shown); give a higher limit to see them\n", wording.Count(leftLines, "more line"), wording.Count(leftFiles, "more file"))
	}
}

// writeLines writes lines first to last of a file as "lineno|hash|content",
// at most most of them.
func (g *group) writeLines(c *call, ss *session, b *strings.Builder, abs string, first, last, most int) {
	content := g.fileLines(c, ss, abs)
	if content == nil {
		fmt.Fprintf(b, "(lines %d-%d of a file outside the served folders)\n", first, last)
		return
	}
	for n := max(first, 1); n <= last && n <= len(content); n++ {
		if n-first == most {
			fmt.Fprintf(b, "… %s more; view_file %s shows them\n", wording.Count(last-n+1, "line"), c.r.Rel(abs))
			return
		}
		b.WriteString(hashline.Line(n, content[n-1]))
		b.WriteString("\n")
	}
}

// fileLines are a file's lines as the server has them (an open document)
// or as the disk has them, when the call may read the file; nil otherwise.
func (g *group) fileLines(c *call, ss *session, abs string) []string {
	if t := ss.sent(abs); t != nil {
		return splitLines(t.Content())
	}
	if abs == c.file.abs {
		return splitLines(c.file.data)
	}
	f, err := readFile(c.r, abs)
	if err != nil {
		return nil
	}
	return splitLines(f.data)
}

// treeSitter answers a read call whose language has no server with what
// the code group's parser finds, said as such; calls it cannot answer get
// the error.
func (g *group) treeSitter(ctx context.Context, c *call, tool string, args any, cause error) (*sdk.Result, error) {
	var sa symbolArgs
	switch a := args.(type) {
	case definitionArgs:
		sa = a.symbolArgs
	case symbolInfoArgs:
		sa = a.symbolArgs
	default:
		return nil, cause
	}
	parts := parseName(sa.Symbol)
	if len(parts) == 0 {
		return nil, cause
	}
	g.fallbackOnce.Do(func() { g.fallback = code.New() })
	if _, err := g.fallback.Describe(ctx, c.req.Host); err != nil {
		return nil, cause
	}
	argv, _ := json.Marshal(map[string]any{"name": strings.Join(parts, "/"), "path": ".", "include_body": tool == "find_definition"})
	res, err := g.fallback.Call(ctx, &sdk.Call{Tool: "find_symbol", Arguments: argv, ID: c.req.ID}, c.req.Events)
	if err != nil || res.IsError {
		return nil, cause
	}
	return sdk.TextResult(fmt.Sprintf("%v\n\nInstead, the declarations named %q that tree-sitter finds by name (not resolved as a language server would; find_symbol answers the same):\n%s", cause, sa.Symbol, res.Text())), nil
}
