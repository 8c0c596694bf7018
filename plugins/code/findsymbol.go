package code

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

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
	Name        string `json:"name" jsonschema:"The symbol's name (\"Run\"), or a name path of enclosing names and the name, separated by '/' or '.' (\"Server/Run\", \"MyClass.method\", \"Outer/Inner/method\"). A name path matches symbols whose path ends with it; start it with '/' to match from the top level of a file (\"/helper\")."`
	Path        string `json:"path,omitempty" jsonschema:"Directory (searched recursively, gitignore-aware) or file to look in: relative to the first served folder, or absolute inside a served folder. Default \".\" (the first served folder)."`
	Kind        string `json:"kind,omitempty" jsonschema:"Only symbols of this kind. Default: any."`
	Substring   bool   `json:"substring,omitempty" jsonschema:"Match the last name of the name path as a case-insensitive substring (\"handler\" finds \"HandleRequest\" and \"errorHandler\"); the enclosing names still match exactly. Default false: exact, case-sensitive."`
	IncludeBody bool   `json:"include_body,omitempty" jsonschema:"Show each symbol's source text, with the comments right above it. Default false."`
	Depth       int    `json:"depth,omitempty" jsonschema:"Also list each symbol's members down to this many levels (1 = its methods and fields), 0 to 5. Default 0."`
	MaxResults  int    `json:"max_results,omitempty" jsonschema:"Most symbols to show. Default 50, at most 500."`
}

var findSymbolSpec = sdk.ToolSpec{
	Name:  "find_symbol",
	Title: "Find a symbol by name",
	Kind:  sdk.KindRead,
	Description: `Find where a function, method, class, type or variable is declared, by name or name path, using a real parser (tree-sitter) over every Go, Python, JavaScript and TypeScript file under path (gitignore-aware, in parallel). Unlike a text search it finds declarations only, knows what encloses them, and can return a symbol's whole body.

Names: "Run" finds every symbol named Run; "Server/Run" (or "Server.Run") the Run members of Server: methods of a class, or Go methods whose receiver is Server or *Server; "/helper" only top-level symbols. With substring: true the last name is a case-insensitive substring. kind narrows to one of: function, method, class, struct, interface, type, enum, enum_member, field, constant, variable, namespace.

Output, sorted by path then line, one symbol per line:
  path:start-end kind name/path: signature
e.g. "pkg/server.go:46-48 method Server/Run: func (s *Server) Run(ctx context.Context) error". Paths are relative to the first served folder, as every tool takes them; lines are 1-based. depth lists each symbol's members indented below it. With include_body, each header is followed by the symbol's source exactly as in the file (tabs and all, so it can be used in replace_text), starting at the comments right above it (the range in the header covers them), and entries are separated by blank lines; a body over 400 lines is cut with a note of where it continues.

At most max_results symbols (default 50) are shown; a last line says when more were left out. Use outline to see everything one file declares.`,
}

var findSymbolSchema = sdk.SchemaFor[findSymbolArgs](func(p map[string]*jsonschema.Schema) {
	p["name"].MinLength = new(1)
	p["path"].Default = []byte(`"."`)
	sdk.Enum(p["kind"], allKinds...)
	boolDefault(p["substring"], false)
	boolDefault(p["include_body"], false)
	sdk.IntDefault(p["depth"], 0, 0, maxSymbolDepth)
	sdk.IntDefault(p["max_results"], defaultSymbolResults, 1, maxSymbolResults)
})

// kindAliases are names a model may use for a kind.
var kindAliases = map[string]string{
	"func": kindFunction, "def": kindFunction, "fn": kindFunction,
	"const": kindConstant, "var": kindVariable, "let": kindVariable,
	"property": kindField, "attribute": kindField, "member": kindField,
	"module": kindNamespace, "enummember": kindEnumMember, "type_alias": kindType,
}

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
	parsed bool
}

func (s *server) findSymbol(ctx context.Context, r *roots.Roots, args findSymbolArgs) (*sdk.Result, error) {
	np, err := parseNamePath(args.Name, args.Substring)
	if err != nil {
		return nil, err
	}
	kind := strings.ToLower(strings.TrimSpace(args.Kind))
	if a, ok := kindAliases[kind]; ok {
		kind = a
	}
	if kind != "" && !slices.Contains(allKinds, kind) {
		return nil, sdk.Failf("kind %q is not one of %s", args.Kind, strings.Join(allKinds, ", "))
	}
	if args.Depth < 0 || args.Depth > maxSymbolDepth {
		return nil, sdk.Failf("depth must be between 0 and %d (got %d)", maxSymbolDepth, args.Depth)
	}
	if args.MaxResults < 0 {
		return nil, sdk.Failf("max_results must be at least 1 (got %d); leave it out for the default of %d", args.MaxResults, defaultSymbolResults)
	}
	limit := args.MaxResults
	if limit == 0 {
		limit = defaultSymbolResults
	}
	limit = min(limit, maxSymbolResults)
	if args.Path == "" {
		args.Path = "."
	}
	t, err := resolveRead(r, args.Path)
	if err != nil {
		return nil, err
	}
	shownRoot := display(r, t.Abs)
	fi, err := t.Stat()
	switch {
	case os.IsNotExist(err):
		return nil, sdk.Failf("%s does not exist; give a directory or file inside the served folders", shownRoot)
	case err != nil:
		return nil, sdk.Failf("cannot read %s: %v", shownRoot, unwrapPath(err))
	case !fi.IsDir() && languageFor(t.Abs) == nil:
		return nil, sdk.Failf("%s: find_symbol reads %s; use search_code for other files", shownRoot, supportedExts())
	}
	// The last name occurs in any file that declares it: files without it
	// are not parsed.
	pre, err := newMatcher(np.last(), true, !np.substring)
	if err != nil {
		return nil, err
	}

	var (
		b                    strings.Builder
		skips                skipCounts
		files, shown, parsed int
		leftSyms, leftFiles  int
		capped               bool
	)
	stats, err := scanOrdered(ctx, walkSpec{r: r, t: t, opts: defaultBudget(), accept: func(name string) bool { return languageFor(name) != nil }},
		newWorkerState,
		func(ctx context.Context, st *workerState, job fileJob) fileSymbols {
			return findInFile(ctx, st, job.t, np, kind, args.IncludeBody, pre, limit)
		},
		func(job fileJob, fs fileSymbols) int {
			if fs.status != readOK {
				skips.add(fs.status)
				return noLimit
			}
			files++
			if fs.parsed {
				parsed++
			}
			if len(fs.hits) == 0 {
				return noLimit
			}
			if capped {
				leftSyms += len(fs.hits)
				leftFiles++
				return noLimit
			}
			k := min(len(fs.hits), limit-shown)
			for _, h := range fs.hits[:k] {
				if args.IncludeBody && shown > 0 {
					b.WriteByte('\n')
				}
				writeHit(&b, job.shown, h, args.Depth, args.IncludeBody)
				shown++
			}
			if k < len(fs.hits) {
				leftSyms += len(fs.hits) - k
				leftFiles++
			}
			if shown >= limit || b.Len() >= maxSymbolOutput {
				capped = true
				return job.idx
			}
			return noLimit
		})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, sdk.Failf("cannot search %s: %v", shownRoot, unwrapPath(err))
	}

	what := fmt.Sprintf("name path %q", args.Name)
	if len(np.parts) == 1 {
		what = fmt.Sprintf("name %q", args.Name)
	}
	if np.substring {
		what += " (substring)"
	}
	if kind != "" {
		what += " of kind " + kind
	}
	var totals string
	switch {
	case shown == 0:
		totals = fmt.Sprintf("(no symbol matches %s in %s under %s", what, plural(files, "source file", "source files"), shownRoot)
		var hints []string
		if !np.substring {
			hints = append(hints, "substring: true")
		}
		if kind != "" {
			hints = append(hints, "no kind")
		}
		if len(np.parts) > 1 {
			hints = append(hints, fmt.Sprintf("just %q", np.last()))
		}
		if len(hints) > 0 {
			totals += "; try " + strings.Join(hints, ", or ")
		}
		totals += "; search_code finds text anywhere"
	case capped && (leftSyms > 0 || stats.cut):
		totals = fmt.Sprintf("(%s shown; max_results=%d reached", plural(shown, "symbol", "symbols"), limit)
		if b.Len() >= maxSymbolOutput {
			totals = fmt.Sprintf("(%s shown; output limit of %d KiB reached", plural(shown, "symbol", "symbols"), maxSymbolOutput>>10)
		}
		if leftSyms > 0 {
			totals += fmt.Sprintf(": %s in %s left out", plural(leftSyms, "more symbol", "more symbols"), plural(leftFiles, "file", "files"))
		}
		if stats.cut {
			totals += ", and later files were not searched"
		}
		totals += "; narrow name, kind or path, or raise max_results"
	default:
		totals = fmt.Sprintf("(%s in %s searched", plural(shown, "symbol", "symbols"), plural(files, "source file", "source files"))
	}
	if sk := skips.String(); sk != "" {
		totals += "; " + sk
	}
	totals += ")"
	if args.IncludeBody && shown > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(totals)
	return sdk.TextResult(b.String()), nil
}

// findInFile parses one file, if the name occurs in it, and returns the
// symbols that match (at most limit of them, in order).
func findInFile(ctx context.Context, st *workerState, t *roots.Target, np namePath, kind string, withBody bool, pre *matcher, limit int) fileSymbols {
	src, status := st.readFile(t)
	if status != readOK {
		return fileSymbols{status: status}
	}
	if !pre.contains(src, &st.folded) {
		return fileSymbols{}
	}
	l := languageFor(t.Abs)
	syms, err := st.parser(l).symbols(ctx, l, src, withBody)
	if err != nil {
		return fileSymbols{status: readFailed}
	}
	fs := fileSymbols{parsed: true}
	var visit func(ss []*Symbol)
	visit = func(ss []*Symbol) {
		for _, s := range ss {
			if (kind == "" || s.Kind == kind) && np.matches(s) {
				h := symbolHit{sym: s}
				if withBody && len(fs.hits) < limit {
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
			fmt.Fprintf(b, "… (%s; view_file %s from line %d)\n", plural(h.bodyCut, "more line", "more lines"), shown, h.bodyStart+maxBodyLines)
		}
	}
}

// writeMembers lists members under a found symbol, indented.
func writeMembers(b *strings.Builder, syms []*Symbol, level, depth int) {
	for _, s := range syms {
		b.WriteString(strings.Repeat("  ", level))
		writeSymbolLine(b, s, s.Name)
		if len(s.Children) > 0 && level >= depth {
			fmt.Fprintf(b, " [+%s]", plural(len(s.Children), "member", "members"))
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
