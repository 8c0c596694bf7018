package lsp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	lspc "github.com/ramabana/ramabana-mcp/internal/lsp"
	"github.com/ramabana/ramabana-mcp/plugins/internal/atomicfile"
	"github.com/ramabana/ramabana-mcp/plugins/internal/hashline"
	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// maxChangedShown bounds the changed lines a write tool shows.
const maxChangedShown = 200

type renameArgs struct {
	symbolArgs
	NewName string `json:"new_name" jsonschema:"the symbol's new name"`
}

var renameSpec = sdk.ToolSpec{
	Name:        "rename_symbol",
	Title:       "Rename a symbol",
	Kind:        sdk.KindWrite,
	Description: `Rename a symbol everywhere it is referenced in the workspace, as the language server resolves it (not a text replacement: shadowed and same-named symbols are left alone). Every file is written or none, and refused if it changed since the server read it. Name the symbol by path and symbol (name or name path), by path and line, or both. Returns the changed lines as "lineno|hash|content".`,
}

var renameSchema = sdk.LazySchemaFor[renameArgs](func(p map[string]*jsonschema.Schema) {
	symbolSchema(p)
	p["new_name"].MinLength = new(1)
})

func (g *group) rename(ctx context.Context, c *call, ss *session, args renameArgs) (*sdk.Result, error) {
	newName := strings.TrimSpace(args.NewName)
	if newName == "" {
		return nil, sdk.Failf("new_name is empty; give the symbol's new name")
	}
	sp, err := g.prepareSpot(ctx, c, ss, args.symbolArgs, false, true)
	if err != nil {
		return nil, err
	}
	if sp.name == newName {
		return nil, sdk.Failf("%s is already named %s", sp.where(c.file.display), newName)
	}
	uri := lspc.URIFromPath(c.file.abs)
	prep, err := ss.c.PrepareRename(ctx, uri, sp.pos)
	switch re := (*lspc.ResponseError)(nil); {
	case err == nil && prep == nil:
		return nil, sdk.Failf("the %s language server says %s at %s cannot be renamed", c.lang.title, sp.name, sp.where(c.file.display))
	case errors.As(err, &re) && re.Code == lspc.CodeMethodNotFound:
		// A server without prepareRename: the rename itself says.
	case errors.As(err, &re):
		return nil, sdk.Failf("%s at %s cannot be renamed: %s", sp.name, sp.where(c.file.display), re.Message)
	case err != nil:
		return nil, err
	}
	// What the server has of each file, as it computes the edit: another
	// call may change it meanwhile.
	snap := ss.snapshot()
	we, err := ss.c.Rename(ctx, uri, sp.pos, newName)
	if err != nil {
		if re := (*lspc.ResponseError)(nil); errors.As(err, &re) {
			return nil, sdk.Failf("the %s language server cannot rename %s to %s: %s", c.lang.title, sp.name, newName, re.Message)
		}
		return nil, err
	}
	if we == nil {
		return nil, sdk.Failf("the %s language server proposes no edit to rename %s at %s", c.lang.title, sp.name, sp.where(c.file.display))
	}
	edits, err := g.workspaceEdits(c, ss, snap, we)
	if err != nil {
		return nil, err
	}
	// A rename replaces the old name and nothing else: an edit whose old
	// text is anything else was computed on other content (a file changed
	// unseen, a position past a line's end) or is not a rename's.
	for _, fe := range edits {
		for _, e := range fe.edits {
			if old := string(fe.basis[e.Start:e.End]); old != sp.name {
				return nil, sdk.Failf("the %s language server's rename would replace %q in %s, not %s; the file may have changed since the server read it. Nothing was written: run the call again", c.lang.title, clipText(old, 40), c.r.Rel(fe.abs), sp.name)
			}
		}
	}
	res, err := g.apply(ctx, c, ss, edits)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, e := range edits {
		n += len(e.edits)
	}
	res.Content[0].Text = fmt.Sprintf("Renamed %s to %s: %s in %s.\n%s", sp.name, newName, wording.Count(n, "edit"), wording.Count(len(edits), "file"), res.Content[0].Text)
	return res, nil
}

type replaceBodyArgs struct {
	symbolArgs
	Body string `json:"body" jsonschema:"the symbol's whole new declaration (signature and body, without its doc comment), as it should stand in the file"`
}

var replaceBodySpec = sdk.ToolSpec{
	Name:        "replace_symbol_body",
	Title:       "Replace a symbol's declaration",
	Kind:        sdk.KindWrite,
	Description: `Replace the whole declaration of a function, method, class or other symbol the file declares (its signature and body; its doc comment stays) with new text, found by the language server's symbols rather than by text. Name it by path and symbol (name or name path such as "Server/Run"), with line to choose among same-named ones. Refused if the file changed since it was read. Returns the new lines as "lineno|hash|content".`,
}

var replaceBodySchema = sdk.LazySchemaFor[replaceBodyArgs](func(p map[string]*jsonschema.Schema) {
	symbolSchema(p)
	p["body"].MinLength = new(1)
})

func (g *group) replaceBody(ctx context.Context, c *call, ss *session, args replaceBodyArgs) (*sdk.Result, error) {
	if err := refusePrefixes("body", args.Body); err != nil {
		return nil, err
	}
	sp, err := g.prepareSpot(ctx, c, ss, args.symbolArgs, true, false)
	if err != nil {
		return nil, err
	}
	start, end, err := sp.text.OffsetRange(sp.decl.sym.Range, ss.c.Encoding())
	if err != nil {
		return nil, err
	}
	body := strings.TrimRight(args.Body, "\r\n")
	content := sp.text.Content()
	// A declaration that ends its line keeps the line's ending.
	body = withEOL(body, content)
	return g.editFile(ctx, c, ss, sp, []lspc.ByteEdit{{Start: start, End: end, NewText: strings.TrimRight(body, "\r\n")}}, "Replaced "+sp.decl.pathName())
}

type insertArgs struct {
	symbolArgs
	Text string `json:"text" jsonschema:"the lines to insert, as they should stand in the file"`
}

var insertBeforeSpec = sdk.ToolSpec{
	Name:        "insert_before_symbol",
	Title:       "Insert before a symbol",
	Kind:        sdk.KindWrite,
	Description: `Insert lines before the declaration of a symbol the file declares (before its doc comment or decorators): a new function, class or import beside an existing one, found by the language server's symbols. Name it by path and symbol (name or name path), with line to choose among same-named ones. Refused if the file changed since it was read. Returns the new lines as "lineno|hash|content".`,
}

var insertAfterSpec = sdk.ToolSpec{
	Name:        "insert_after_symbol",
	Title:       "Insert after a symbol",
	Kind:        sdk.KindWrite,
	Description: `Insert lines after the end of the declaration of a symbol the file declares: a new function, method or class after an existing one, found by the language server's symbols. Name it by path and symbol (name or name path), with line to choose among same-named ones. Refused if the file changed since it was read. Returns the new lines as "lineno|hash|content".`,
}

var insertSchema = sdk.LazySchemaFor[insertArgs](func(p map[string]*jsonschema.Schema) {
	symbolSchema(p)
	p["text"].MinLength = new(1)
})

func (g *group) insertBefore(ctx context.Context, c *call, ss *session, args insertArgs) (*sdk.Result, error) {
	return g.insert(ctx, c, ss, args, true)
}

func (g *group) insertAfter(ctx context.Context, c *call, ss *session, args insertArgs) (*sdk.Result, error) {
	return g.insert(ctx, c, ss, args, false)
}

func (g *group) insert(ctx context.Context, c *call, ss *session, args insertArgs, before bool) (*sdk.Result, error) {
	if err := refusePrefixes("text", args.Text); err != nil {
		return nil, err
	}
	sp, err := g.prepareSpot(ctx, c, ss, args.symbolArgs, true, false)
	if err != nil {
		return nil, err
	}
	content := sp.text.Content()
	lines := splitLines(content)
	r := sp.decl.sym.Range
	eol := "\n"
	if bytes.Contains(content, []byte("\r\n")) {
		eol = "\r\n"
	}
	// The text as given, blank lines kept, ending its last line.
	text := strings.ReplaceAll(strings.ReplaceAll(args.Text, "\r\n", "\n"), "\n", eol)
	if !strings.HasSuffix(text, eol) {
		text += eol
	}
	var off int
	what := "Inserted before " + sp.decl.pathName()
	if before {
		first := int(r.Start.Line) + 1
		if first < 1 || first > len(lines) {
			return nil, sdk.Failf("the %s language server places %s on line %d, which %s does not have; nothing was written", c.lang.title, sp.decl.pathName(), first, c.file.display)
		}
		// Past the doc comment and decorators just above.
		for first > 1 && isPreamble(lines[first-2]) {
			first--
		}
		off = lineStart(content, first)
	} else {
		what = "Inserted after " + sp.decl.pathName()
		off = lineStart(content, lastLine(r)+1)
		if off == len(content) && len(content) > 0 && content[len(content)-1] != '\n' {
			text = eol + strings.TrimSuffix(text, eol)
		}
	}
	return g.editFile(ctx, c, ss, sp, []lspc.ByteEdit{{Start: off, End: off, NewText: text}}, what)
}

// isPreamble says a line belongs to the declaration below it: a comment or
// a decorator.
func isPreamble(line string) bool {
	t := strings.TrimSpace(line)
	for _, p := range []string{"//", "#", "/*", "*", "@"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// withEOL gives text the line ending content uses.
func withEOL(text string, content []byte) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if bytes.Contains(content, []byte("\r\n")) {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	return text
}

// refusePrefixes refuses text that carries view_file's prefixes.
func refusePrefixes(arg, text string) error {
	for i, line := range strings.Split(text, "\n") {
		if p := hashline.Prefix(line); p != "" {
			return sdk.Failf("line %d of %s starts with %q, view_file's \"lineno|hash|\" prefix; the prefixes are view_file's display, not the file's content: send the lines without them", i+1, arg, p)
		}
	}
	return nil
}

// editFile applies edits of the call's file, computed on the text the
// server has (sp.text).
func (g *group) editFile(ctx context.Context, c *call, ss *session, sp *spot, edits []lspc.ByteEdit, what string) (*sdk.Result, error) {
	fe := fileEdits{abs: c.file.abs, basis: sp.text.Content(), edits: edits}
	res, err := g.apply(ctx, c, ss, []fileEdits{fe})
	if err != nil {
		return nil, err
	}
	res.Content[0].Text = fmt.Sprintf("%s in %s.\n%s", what, c.file.display, res.Content[0].Text)
	return res, nil
}

// fileEdits are the edits of one file and the content they were computed
// on.
type fileEdits struct {
	abs   string
	basis []byte
	edits []lspc.ByteEdit
}

// workspaceEdits turns a server's edit into each file's edits, each file
// checked: inside the served folders (its path resolved, so a link and its
// target are one file), of the call's language and not in a .git folder,
// and unchanged since the server read it (the open document's content and
// version, or the file as the server was last told of it, per snap).
func (g *group) workspaceEdits(c *call, ss *session, snap *snapshot, we *lspc.WorkspaceEdit) ([]fileEdits, error) {
	basis := map[string][]byte{}
	resolved := map[string]string{} // the server's path → the file's
	read := func(path string) ([]byte, error) {
		t, err := c.r.Write(path)
		if err != nil {
			return nil, sdk.Failf("the edit would change %s: %v; nothing was written", c.r.Rel(path), err)
		}
		abs, display := t.Abs, c.r.Rel(t.Abs)
		resolved[path] = abs
		if languageOf(abs) != c.lang {
			return nil, sdk.Failf("the edit would change %s, which is not a %s file; nothing was written", display, c.lang.title)
		}
		if slices.Contains(strings.Split(filepath.ToSlash(abs), "/"), ".git") {
			return nil, sdk.Failf("the edit would change %s, inside a .git folder; nothing was written", display)
		}
		for _, p := range []string{path, abs} {
			if text, ok := snap.docs[p]; ok {
				basis[abs] = text
				return text, nil
			}
		}
		f, err := readFile(c.r, abs)
		if err != nil {
			return nil, err
		}
		st, ok := snap.stamps[abs]
		if !ok {
			st, ok = snap.stamps[path]
		}
		if ok {
			if fi, err := os.Stat(abs); err != nil || fi.Size() != st.size || !fi.ModTime().Equal(st.mtime) {
				return nil, sdk.Failf("%s changed since the language server read it; nothing was written: run the call again", display)
			}
		}
		basis[abs] = f.data
		return f.data, nil
	}
	fes, err := we.FileEdits(read, ss.c.Encoding())
	if err != nil {
		if te := (*sdk.ToolError)(nil); errors.As(err, &te) {
			return nil, err
		}
		return nil, sdk.Failf("the %s language server's edit cannot be applied (%v); nothing was written", c.lang.title, err)
	}
	var out []fileEdits
	seen := map[string]bool{}
	for _, fe := range fes {
		abs := resolved[fe.Path]
		if seen[abs] {
			return nil, sdk.Failf("the edit changes %s under two names; nothing was written", c.r.Rel(abs))
		}
		seen[abs] = true
		if fe.Version != nil {
			if v, ok := snap.versions[fe.Path]; ok && v != *fe.Version {
				return nil, sdk.Failf("%s changed since the language server computed the edit; nothing was written: run the call again", c.r.Rel(abs))
			}
		}
		out = append(out, fileEdits{abs: abs, basis: basis[abs], edits: fe.Edits})
	}
	return out, nil
}

// clipText is s cut to n bytes, for a message.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// apply writes every file's edits, all of them or none, each file refused
// when it no longer holds the content the edits were computed on; tells
// the server; and returns the changed lines, with the changes for the
// activity feed.
func (g *group) apply(ctx context.Context, c *call, ss *session, edits []fileEdits) (*sdk.Result, error) {
	if len(edits) == 0 {
		return nil, sdk.Failf("the edit changes nothing")
	}
	var changes []atomicfile.Change
	var closers []func() error
	defer func() {
		for _, cl := range closers {
			_ = cl()
		}
	}()
	after := map[string][]byte{}
	before := map[string][]byte{}
	for _, fe := range edits {
		t, err := c.r.Write(fe.abs)
		if err != nil {
			return nil, sdk.Failf("the edit would change %s: %v; nothing was written", c.r.Rel(fe.abs), err)
		}
		display := c.r.Rel(t.Abs)
		dir, name, err := t.Parent(false)
		if err != nil {
			return nil, sdk.Failf("cannot write %s: %v; nothing was written", display, err)
		}
		closers = append(closers, dir.Close)
		basisSum := sha256.Sum256(fe.basis)
		next := lspc.Apply(fe.basis, fe.edits)
		abs := t.Abs
		changes = append(changes, atomicfile.Change{
			Dir:  dir,
			Name: name,
			Check: func(fi fs.FileInfo) error {
				if !fi.Mode().IsRegular() {
					return sdk.Failf("%s is not a regular file; nothing was written", display)
				}
				return nil
			},
			Edit: func(cur []byte, _ fs.FileInfo) ([]byte, error) {
				if sha256.Sum256(cur) != basisSum {
					return nil, sdk.Failf("%s changed since the language server read it (it no longer holds the content the edit was computed on); nothing was written: read it again and retry", display)
				}
				before[abs] = cur
				after[abs] = next
				return next, nil
			},
		})
	}
	if g.beforeWrite != nil {
		g.beforeWrite()
	}
	if err := atomicfile.UpdateAll(ctx, changes); err != nil {
		if te := (*sdk.ToolError)(nil); errors.As(err, &te) {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, atomicfile.Failure(err, "the edited files", "read them again")
	}
	ss.wrote(after)
	res := &sdk.Result{}
	var b strings.Builder
	shown := 0
	paths := make([]string, 0, len(edits))
	for _, fe := range edits {
		paths = append(paths, fe.abs)
	}
	slices.SortFunc(paths, func(a, b string) int { return strings.Compare(c.r.Rel(a), c.r.Rel(b)) })
	for _, abs := range paths {
		res.Changes = append(res.Changes, sdk.NewFileChange(abs, before[abs], after[abs]))
		var fe fileEdits
		for _, e := range edits {
			if e.abs == abs {
				fe = e
			}
		}
		b.WriteString(c.r.Rel(abs))
		b.WriteString("\n")
		lines := splitLines(after[abs])
		for _, n := range changedLines(fe.basis, fe.edits) {
			if shown == maxChangedShown {
				break
			}
			if n <= len(lines) {
				b.WriteString(hashline.Line(n, lines[n-1]))
				b.WriteString("\n")
				shown++
			}
		}
	}
	if shown == maxChangedShown {
		b.WriteString("… more changed lines not shown; view_file shows them\n")
	}
	res.Content = []sdk.Content{{Text: strings.TrimRight(b.String(), "\n")}}
	return res, nil
}

// changedLines are the 1-based lines of the new content that edits (on
// basis) wrote, in order.
func changedLines(basis []byte, edits []lspc.ByteEdit) []int {
	var out []int
	shift := 0 // lines added so far
	for _, e := range edits {
		startLine := bytes.Count(basis[:e.Start], []byte("\n")) + 1 + shift
		newLines := strings.Count(e.NewText, "\n")
		oldLines := bytes.Count(basis[e.Start:e.End], []byte("\n"))
		last := startLine + newLines
		if strings.HasSuffix(e.NewText, "\n") && newLines > 0 {
			last--
		}
		for n := startLine; n <= last; n++ {
			if len(out) == 0 || out[len(out)-1] < n {
				out = append(out, n)
			}
		}
		shift += newLines - oldLines
	}
	return out
}
