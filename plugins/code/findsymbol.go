package code

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

const (
	defaultSymbolResults = 50
	maxSymbolResults     = 500
	maxSymbolDepth       = 5
	// maxBodyLines bounds one body; maxSymbolOutput the whole answer.
	maxBodyLines    = 400
	maxSymbolOutput = 256 << 10
)

type findSymbolArgs struct {
	Name        string `json:"name" jsonschema:"\"Run\", \"Server/Run\" (members of Server) or \"/helper\" (top level only)"`
	Path        string `json:"path,omitempty" jsonschema:"directory or file, relative to the first served folder"`
	Kind        string `json:"kind,omitempty" jsonschema:"only this kind"`
	Substring   bool   `json:"substring,omitempty" jsonschema:"last name matches as a case-insensitive substring"`
	IncludeBody bool   `json:"include_body,omitempty" jsonschema:"add each symbol's source"`
	Depth       int    `json:"depth,omitempty" jsonschema:"member levels listed under each symbol"`
	Limit       int    `json:"limit,omitempty" jsonschema:"most symbols"`
}

var findSymbolSpec = sdk.ToolSpec{
	Name:        "find_symbol",
	Title:       "Find a symbol by name",
	Kind:        sdk.KindRead,
	Description: `Find declarations (functions, methods, classes, types, variables) by name in the Go, Python, JavaScript and TypeScript files under path, with tree-sitter. One line per symbol: "path:start-end kind name/path: signature".`,
}

var findSymbolSchema = sdk.LazySchemaFor[findSymbolArgs](func(p map[string]*jsonschema.Schema) {
	p["name"].MinLength = new(1)
	p["path"].Default = []byte(`"."`)
	sdk.Enum(p["kind"], allKinds...)
	boolDefault(p["substring"], false)
	boolDefault(p["include_body"], false)
	sdk.IntDefault(p["depth"], 0, 0, maxSymbolDepth)
	sdk.IntDefault(p["limit"], defaultSymbolResults, 1, maxSymbolResults)
})

// namePath is a parsed name or name path.
type namePath struct {
	parts    []string
	absolute bool
	// substring matches the last part ignoring case.
	substring bool
	lower     string
}

func parseNamePath(s string, substring bool) (namePath, error) {
	np := namePath{substring: substring}
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "/") {
		np.absolute = true
		s = s[1:]
	}
	// A Go receiver as written in code: "(*Server).Run".
	s = strings.NewReplacer("(", "", ")", "", "*", "").Replace(s)
	s = strings.ReplaceAll(s, "::", "/")
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '.' }) {
		if p = strings.TrimSpace(p); p != "" {
			np.parts = append(np.parts, p)
		}
	}
	if len(np.parts) == 0 {
		return np, sdk.Failf("name %q has no name in it; give a symbol name such as \"Run\" or a name path such as \"Server/Run\"", s)
	}
	np.lower = strings.ToLower(np.parts[len(np.parts)-1])
	return np, nil
}

func (np namePath) last() string { return np.parts[len(np.parts)-1] }

func (np namePath) matches(s *Symbol) bool {
	n, k := len(s.Path), len(np.parts)
	if n < k || np.absolute && n != k {
		return false
	}
	for i := 0; i < k-1; i++ {
		if s.Path[n-k+i] != np.parts[i] {
			return false
		}
	}
	if np.substring {
		return strings.Contains(strings.ToLower(s.Name), np.lower)
	}
	return s.Name == np.parts[k-1]
}

// symbolHit is a symbol found, with what the worker read for it.
type symbolHit struct {
	sym *Symbol
	// body and bodyStart are set with include_body.
	body      string
	bodyStart int
	bodyCut   int // lines left out of body
}

type fileSymbols struct {
	status readStatus
	hits   []symbolHit
}

// symbolQuery is a validated find_symbol call, shared by the workers.
type symbolQuery struct {
	// name is the name path as given, for the totals line.
	name     string
	np       namePath
	kind     string // a canonical kind; "" for any
	depth    int
	withBody bool
	limit    int
	// t is the directory or source file searched, shown as root.
	t    *roots.Target
	root string
	// pre finds the files worth parsing: a file that declares the last
	// name contains it.
	pre *matcher
}

func (s *server) findSymbol(ctx context.Context, r *roots.Roots, args findSymbolArgs) (*sdk.Result, error) {
	q, err := newSymbolQuery(r, args)
	if err != nil {
		return nil, err
	}
	listing, sum, err := findSymbols(ctx, r, q)
	if err != nil {
		return nil, err
	}
	return sdk.TextResult(listing + sum.String()), nil
}

// newSymbolQuery applies find_symbol's defaults and bounds and resolves its
// path. Its errors are tool failures that say what to change.
func newSymbolQuery(r *roots.Roots, args findSymbolArgs) (*symbolQuery, error) {
	np, err := parseNamePath(args.Name, args.Substring)
	if err != nil {
		return nil, err
	}
	kind, err := canonicalKind(args.Kind)
	if err != nil {
		return nil, err
	}
	if args.Depth < 0 || args.Depth > maxSymbolDepth {
		return nil, sdk.Failf("depth must be between 0 and %d (got %d)", maxSymbolDepth, args.Depth)
	}
	limit, err := resultLimit(args.Limit, defaultSymbolResults, maxSymbolResults)
	if err != nil {
		return nil, err
	}
	if args.Path == "" {
		args.Path = "."
	}
	t, err := resolveRead(r, args.Path)
	if err != nil {
		return nil, err
	}
	root := display(r, t.Abs)
	fi, err := t.Stat()
	switch {
	case os.IsNotExist(err):
		return nil, sdk.Failf("%s does not exist; give a directory or file inside the served folders", root)
	case err != nil:
		return nil, sdk.Failf("cannot read %s: %v", root, unwrapPath(err))
	case !fi.IsDir() && languageFor(t.Abs) == nil:
		return nil, sdk.Failf("%s: find_symbol reads %s; use search_code for other files", root, supportedExts())
	case !fi.IsDir() && !parses(languageFor(t.Abs)):
		return nil, needsCgo("find_symbol in", languageFor(t.Abs))
	}
	pre, err := newMatcher(np.last(), true, !np.substring)
	if err != nil {
		return nil, err
	}
	return &symbolQuery{name: args.Name, np: np, kind: kind, depth: args.Depth, withBody: args.IncludeBody,
		limit: limit, t: t, root: root, pre: pre}, nil
}

// canonicalKind is the kind argument as one of allKinds, "" for any kind.
// The input schema's enum admits exactly allKinds, so through the host the
// error below is never met; aliases ("const", "func") were dropped when the
// schema, the stricter rule, turned out to refuse them first.
func canonicalKind(arg string) (string, error) {
	kind := strings.ToLower(strings.TrimSpace(arg))
	if kind != "" && !slices.Contains(allKinds, kind) {
		return "", sdk.Failf("kind %q is not one of %s", arg, strings.Join(allKinds, ", "))
	}
	return kind, nil
}

// findSymbols scans q's tree and returns the listing of the symbols shown,
// ready for the totals line to follow, and what that line reports. The
// listing stops at q.limit symbols or maxSymbolOutput; the rest is counted.
func findSymbols(ctx context.Context, r *roots.Roots, q *symbolQuery) (string, symbolSummary, error) {
	var b strings.Builder
	sum := symbolSummary{name: q.name, np: q.np, kind: q.kind, root: q.root, limit: q.limit}
	spec := walkSpec{r: r, t: q.t, opts: defaultBudget(), accept: func(name string) bool {
		return languageFor(name) != nil && !sum.unparsed.skip(name)
	}}
	stats, err := scanOrdered(ctx, spec, newWorkerState,
		func(ctx context.Context, st *workerState, job fileJob) fileSymbols {
			return findInFile(ctx, st, job.t, q)
		},
		func(job fileJob, fs fileSymbols) int {
			sep := q.withBody && sum.shown > 0
			k := sum.take(fs.status, len(fs.hits), len(fs.hits), q.limit)
			for _, h := range fs.hits[:k] {
				if sep {
					b.WriteByte('\n')
				}
				writeHit(&b, job.shown, h, q.depth, q.withBody)
				sep = q.withBody
			}
			if k > 0 && (sum.shown >= q.limit || b.Len() >= maxSymbolOutput) {
				sum.capped = true
				return job.idx
			}
			return noLimit
		})
	if err != nil {
		return "", symbolSummary{}, scanError(ctx, q.root, err)
	}
	sum.unsearched = stats.cut
	sum.outputFull = b.Len() >= maxSymbolOutput
	// With bodies, a blank line ends every entry, the last one included.
	if q.withBody && sum.shown > 0 {
		b.WriteByte('\n')
	}
	return b.String(), sum, nil
}

// symbolSummary is what find_symbol's totals line reports.
type symbolSummary struct {
	scanTally
	// name, np and kind are what was looked for; root where.
	name  string
	np    namePath
	kind  string
	root  string
	limit int
	// outputFull is true when the scan stopped at maxSymbolOutput rather
	// than at limit.
	outputFull bool
	// unparsed counts the files left out because this build cannot parse
	// them. The walk writes it; String runs after the walk.
	unparsed unparsedFiles
}

// String is the totals line, in parentheses, without a line end.
func (s symbolSummary) String() string {
	var totals string
	switch {
	case s.shown == 0:
		totals = s.noMatch()
	case s.capped && (s.left > 0 || s.unsearched):
		totals = fmt.Sprintf("(%s shown; limit=%d reached", wording.CountOf(s.shown, "symbol", "symbols"), s.limit)
		if s.outputFull {
			totals = fmt.Sprintf("(%s shown; output limit of %d KiB reached", wording.CountOf(s.shown, "symbol", "symbols"), maxSymbolOutput>>10)
		}
		if s.left > 0 {
			totals += fmt.Sprintf(": %s in %s left out", wording.CountOf(s.left, "more symbol", "more symbols"), wording.CountOf(s.leftFiles, "file", "files"))
		}
		if s.unsearched {
			totals += ", and later files were not searched"
		}
		totals += "; narrow name, kind or path, or raise limit"
	default:
		totals = fmt.Sprintf("(%s in %s searched", wording.CountOf(s.shown, "symbol", "symbols"), wording.CountOf(s.read, "source file", "source files"))
	}
	if sk := s.skips.String(); sk != "" {
		totals += "; " + sk
	}
	if s.unparsed.n > 0 {
		totals += fmt.Sprintf("; %s not searched: %s", s.unparsed, unparsedReason)
	}
	return totals + ")"
}

// noMatch is the open totals line of a search that found nothing, with
// the ways to widen it that the query leaves.
func (s symbolSummary) noMatch() string {
	what := fmt.Sprintf("name path %q", s.name)
	if len(s.np.parts) == 1 {
		what = fmt.Sprintf("name %q", s.name)
	}
	if s.np.substring {
		what += " (substring)"
	}
	if s.kind != "" {
		what += " of kind " + s.kind
	}
	totals := fmt.Sprintf("(no symbol matches %s in %s under %s", what, wording.CountOf(s.read, "source file", "source files"), s.root)
	var hints []string
	if !s.np.substring {
		hints = append(hints, "substring: true")
	}
	if s.kind != "" {
		hints = append(hints, "no kind")
	}
	if len(s.np.parts) > 1 {
		hints = append(hints, fmt.Sprintf("just %q", s.np.last()))
	}
	if len(hints) > 0 {
		totals += "; try " + strings.Join(hints, ", or ")
	}
	return totals + "; search_code finds text anywhere"
}

// findInFile parses one file, if the last name occurs in it, and returns
// the symbols that match, in order; with q.withBody the first q.limit of
// them carry their bodies.
func findInFile(ctx context.Context, st *workerState, t *roots.Target, q *symbolQuery) fileSymbols {
	src, status := st.readFile(t)
	if status != readOK {
		return fileSymbols{status: status}
	}
	if !q.pre.contains(src, &st.folded) {
		return fileSymbols{}
	}
	l := languageFor(t.Abs)
	syms, err := st.symbols(ctx, l, src, q.withBody)
	if err != nil {
		return fileSymbols{status: readFailed}
	}
	var fs fileSymbols
	var visit func(ss []*Symbol)
	visit = func(ss []*Symbol) {
		for _, s := range ss {
			if (q.kind == "" || s.Kind == q.kind) && q.np.matches(s) {
				h := symbolHit{sym: s}
				if q.withBody && len(fs.hits) < q.limit {
					h.body, h.bodyStart, h.bodyCut = bodyOf(src, s)
				}
				fs.hits = append(fs.hits, h)
			}
			visit(s.Children)
		}
	}
	visit(syms)
	return fs
}

// bodyOf is a symbol's text from its doc comment on, cut at maxBodyLines,
// with its first line number and the count of lines cut.
func bodyOf(src []byte, s *Symbol) (string, int, int) {
	start := s.Start - bytes.Count(src[s.DocByte:s.StartByte], []byte{'\n'})
	// From the start of the first line, so that indentation is kept.
	from := bytes.LastIndexByte(src[:s.DocByte], '\n') + 1
	text := src[from:s.EndByte]
	cut := 0
	if n := bytes.Count(text, []byte{'\n'}) + 1; n > maxBodyLines {
		i := 0
		for range maxBodyLines {
			i += bytes.IndexByte(text[i:], '\n') + 1
		}
		cut = n - maxBodyLines
		text = text[:i-1]
	}
	return lineTextAll(text), start, cut
}

// lineTextAll is text made valid UTF-8 for the result.
func lineTextAll(b []byte) string {
	s := string(b)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

func writeHit(b *strings.Builder, shown string, h symbolHit, depth int, withBody bool) {
	s := h.sym
	start := s.Start
	if withBody {
		start = h.bodyStart
	}
	if start == s.End {
		fmt.Fprintf(b, "%s:%d %s %s", shown, start, s.Kind, strings.Join(s.Path, "/"))
	} else {
		fmt.Fprintf(b, "%s:%d-%d %s %s", shown, start, s.End, s.Kind, strings.Join(s.Path, "/"))
	}
	if s.Signature != "" && !withBody {
		b.WriteString(": ")
		b.WriteString(s.Signature)
	}
	b.WriteByte('\n')
	if depth > 0 {
		writeMembers(b, s.Children, 1, depth)
	}
	if withBody {
		b.WriteString(h.body)
		if h.bodyCut > 0 {
			fmt.Fprintf(b, "… (%s; view_file %s from line %d)\n", wording.CountOf(h.bodyCut, "more line", "more lines"), shown, h.bodyStart+maxBodyLines)
		}
	}
}

// writeMembers lists members under a found symbol, indented.
func writeMembers(b *strings.Builder, syms []*Symbol, level, depth int) {
	for _, s := range syms {
		b.WriteString(strings.Repeat("  ", level))
		writeSymbolLine(b, s, s.Name)
		if len(s.Children) > 0 && level >= depth {
			fmt.Fprintf(b, " [+%s]", wording.CountOf(len(s.Children), "member", "members"))
		}
		b.WriteByte('\n')
		if level < depth {
			writeMembers(b, s.Children, level+1, depth)
		}
	}
}

// contains reports whether buf holds the matcher's literal: a cheap test
// before parsing.
func (m *matcher) contains(buf []byte, folded *[]byte) bool {
	found := false
	m.scan(buf, folded, func(lineHit) bool {
		found = true
		return false
	})
	return found
}
