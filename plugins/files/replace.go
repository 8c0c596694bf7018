package files

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/internal/textcut"
	"github.com/ramabana/ramabana-mcp/plugins/internal/hashline"
	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// maxShownLines bounds the lines a write tool echoes back.
const maxShownLines = 200

type replaceArgs struct {
	Path       string `json:"path" jsonschema:"file, relative to the first served folder"`
	Old        string `json:"old" jsonschema:"exact text to replace"`
	New        string `json:"new" jsonschema:"text to put in its place; empty deletes"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence"`
}

var replaceSpec = sdk.ToolSpec{
	Name:        "replace_text",
	Title:       "Replace text",
	Kind:        sdk.KindWrite,
	Description: `Replace an exact text in a file: old must occur exactly once (add surrounding lines to make it unique) unless replace_all is true. Whitespace counts; leave out view_file's "lineno|hash|" prefixes. Files keep their line endings and encoding. Returns the changed lines as "lineno|hash|content".`,
}

var replaceSchema = sdk.LazySchemaFor[replaceArgs](func(p map[string]*jsonschema.Schema) {
	one := 1
	p["old"].MinLength = &one
	p["replace_all"].Default = []byte("false")
})

func (s *server) replaceText(ctx context.Context, r *roots.Roots, args replaceArgs) (*sdk.Result, error) {
	if args.Old == "" {
		return nil, sdk.Failf("old is empty; give the exact text to replace (to write a whole file, use create_file)")
	}
	// new may carry the prefixes only where old does: then the file holds
	// such lines, and they are content.
	if n, p := viewPrefix(args.New); n > 0 {
		if m, _ := viewPrefix(args.Old); m == 0 {
			return nil, sdk.Failf("replace_text changed nothing: %s", prefixProblem("new", n, p))
		}
	}
	t, err := resolveWrite(r, args.Path)
	if err != nil {
		return nil, err
	}
	display := r.Rel(t.Abs)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	var summary string
	// The replacement is computed under the file's lock from what it holds
	// then, so a concurrent writer's change is built upon, never lost.
	before, after, err := update(ctx, t, display, "replace_text", func(text string) (string, error) {
		body, at, size, err := replaceIn(text, args, display)
		if err != nil {
			return "", err
		}
		summary = replaceSummary(body, at, size, display)
		return body, nil
	})
	if err != nil {
		return nil, err
	}
	res := sdk.TextResult(summary)
	res.Changes = []sdk.FileChange{sdk.NewFileChange(t.Abs, before, after)}
	return res, nil
}

// replaceIn replaces args.Old by args.New in text (a file's content as
// UTF-8, without its BOM) and
// returns the new text, the offsets of the replacements in it and their
// size.
func replaceIn(text string, args replaceArgs, display string) (out string, at []int, size int, err error) {
	// Match with the file's line endings; fall back to old exactly as given
	// for a file that mixes them.
	eol := detectEOL(text)
	old, repl := toEOL(args.Old, eol), toEOL(args.New, eol)
	n := strings.Count(text, old)
	if n == 0 && old != args.Old {
		if n = strings.Count(text, args.Old); n > 0 {
			old, repl = args.Old, args.New
		}
	}
	switch {
	case n == 0:
		if m, p := viewPrefix(args.Old); m > 0 {
			return "", nil, 0, sdk.Failf("old text was not found in %s; nothing was changed: %s", display, prefixProblem("old", m, p))
		}
		return "", nil, 0, sdk.Failf("old text was not found in %s; nothing was changed. It must match exactly: check whitespace, indentation and line endings, and leave out view_file's \"lineno|hash|\" prefixes", display)
	case n > 1 && !args.ReplaceAll:
		return "", nil, 0, sdk.Failf("old text occurs %d times in %s (first at line %d); nothing was changed. Include more surrounding lines to make it unique, or set replace_all=true to replace all %d", n, display, lineAt(text, strings.Index(text, old)), n)
	case old == repl:
		return "", nil, 0, sdk.Failf("old and new are the same; nothing to change in %s", display)
	}

	// Build the new text, noting where each replacement lands.
	var b strings.Builder
	b.Grow(len(text) + n*(len(repl)-len(old)))
	rest := text
	for range n {
		i := strings.Index(rest, old)
		b.WriteString(rest[:i])
		at = append(at, b.Len())
		b.WriteString(repl)
		rest = rest[i+len(old):]
	}
	b.WriteString(rest)
	return b.String(), at, len(repl), nil
}

// replaceSummary reports the replacements at the offsets at (each size
// bytes long) in out, the new text.
func replaceSummary(out string, at []int, size int, display string) string {
	var b strings.Builder
	if len(at) > 1 {
		fmt.Fprintf(&b, "replaced %d occurrences in %s, now at lines", len(at), display)
		line, prev := 1, 0
		for i, off := range at {
			line += strings.Count(out[prev:off], "\n")
			prev = off
			if i == 20 {
				fmt.Fprintf(&b, " and %d more", len(at)-i)
				break
			}
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, " %d", line)
		}
		return b.String()
	}
	first := lineAt(out, at[0])
	last := first + strings.Count(out[at[0]:at[0]+size], "\n")
	if size > 0 && out[at[0]+size-1] == '\n' {
		last-- // the replacement ends a line; the next one is not part of it
	}
	last = max(first, last)
	if first == last {
		fmt.Fprintf(&b, "replaced 1 occurrence in %s; line %d now reads:\n", display, first)
	} else {
		fmt.Fprintf(&b, "replaced 1 occurrence in %s; lines %d-%d now read:\n", display, first, last)
	}
	writeLines(&b, splitLines(out), first, last)
	return b.String()
}

// lineAt is the 1-based line number of byte offset off in text.
func lineAt(text string, off int) int {
	return 1 + strings.Count(text[:off], "\n")
}

// writeLines writes lines first..last (1-based, clamped) of lines as
// "lineno|hash|content", at most maxShownLines of them, and stops, saying
// where view_file goes on, where b would pass maxViewOutput bytes. It
// reports whether it wrote them all.
func writeLines(b *strings.Builder, lines []string, first, last int) bool {
	first, last = max(first, 1), min(last, len(lines))
	for n := first; n <= last; n++ {
		c := content(lines[n-1])
		if n-first == maxShownLines || (n > first && b.Len()+len(c)+32 > maxViewOutput) {
			fmt.Fprintf(b, "\n(%s; use view_file with start=%d)", wording.Count(last-n+1, "more line"), n)
			return false
		}
		if n > first {
			b.WriteByte('\n')
		}
		if room := maxViewOutput - b.Len() - 32; len(c) > room {
			// Shown cut; the hash is still the whole line's.
			hashline.WritePart(b, n, hashline.Sum(c), textcut.Prefix(c, max(room, 0)))
			fmt.Fprintf(b, "\n(line %d is %s long, cut here; view_file with start=%d shows it in parts)", n, wording.Count(len(c), "byte"), n)
			return false
		}
		hashline.Write(b, n, c)
	}
	return true
}
