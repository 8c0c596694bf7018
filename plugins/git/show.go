package git

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
)

type showArgs struct {
	repoArg
	Ref  string `json:"ref,omitempty" jsonschema:"commit, tag or other object"`
	Path string `json:"path,omitempty" jsonschema:"file or folder to show at ref"`
}

var showSpec = sdk.ToolSpec{
	Name:        "git_show",
	Title:       "Git show",
	Kind:        sdk.KindRead,
	Description: `Show a commit (message, stat and diff), or with path a file or folder as it is at ref. Long output is cut, with a note.`,
}

var showSchema = schemaFor[showArgs](nil)

func (s *server) show(ctx context.Context, rp *repo, args showArgs) (*sdk.Result, error) {
	ref := args.Ref
	if ref == "" {
		ref = "HEAD"
	}
	if args.Path != "" {
		return s.showFile(ctx, rp, ref, args.Path)
	}
	if _, err := rp.verify(ctx, "ref", ref, ""); err != nil {
		if args.Ref == "" {
			return nil, sdk.Failf("%s has no commits yet", rp.display())
		}
		return nil, err
	}
	cmd := append([]string{"show", "--no-color", "--no-ext-diff"}, rp.diffGuards()...)
	out, err := rp.git(ctx, run{limit: maxOutput + 1},
		append(cmd, "--date=iso", "--stat=200", "--patch", "--end-of-options", ref, "--")...)
	if err != nil {
		return nil, err
	}
	if !out.ok() {
		return nil, out.failure("git show")
	}
	text, cut := cutText(string(out.stdout), maxOutput)
	if cut || out.cut {
		text = addNote(text, fmt.Sprintf("cut at 100 KiB; the summary at the top lists every file changed. See single files with git_diff ref: %q ref2: %q paths: [...]", ref+"^", ref))
	}
	return sdk.TextResult(strings.TrimSuffix(text, "\n")), nil
}

func (s *server) showFile(ctx context.Context, rp *repo, ref, path string) (*sdk.Result, error) {
	if _, err := rp.verify(ctx, "ref", ref, "tree"); err != nil {
		return nil, err
	}
	rel, err := rp.path(path)
	if err != nil {
		return nil, err
	}
	spec := ref + ":"
	if rel != "." {
		spec += rel
	}
	oid, err := rp.verify(ctx, "path", spec, "")
	if err != nil {
		return nil, sdk.Failf("%s does not exist at %s; list its folder with git_show path: %q ref: %q", rel, ref, parentDir(rel), ref)
	}
	info, err := rp.git(ctx, run{limit: 4 << 10, stdin: strings.NewReader(oid + "\n")},
		"cat-file", "--batch-check=%(objecttype) %(objectsize)")
	if err != nil {
		return nil, err
	}
	var kind string
	var size int
	if _, err := fmt.Sscanf(string(info.stdout), "%s %d", &kind, &size); err != nil || info.code != 0 {
		return nil, info.failure("git cat-file")
	}
	switch kind {
	case "tree":
		return rp.listTree(ctx, oid, rel, ref)
	case "blob":
	default:
		return sdk.TextResult(fmt.Sprintf("%s at %s is a %s (%s), not a file", rel, ref, kind, short(oid))), nil
	}
	out, err := rp.git(ctx, run{limit: maxOutput + 1}, "cat-file", "blob", oid)
	if err != nil {
		return nil, err
	}
	if !out.ok() {
		return nil, out.failure("git cat-file")
	}
	if bytes.IndexByte(out.stdout[:min(len(out.stdout), 8000)], 0) >= 0 {
		return sdk.TextResult(fmt.Sprintf("%s at %s is a binary file of %s; not shown", rel, ref, wording.Count(size, "byte"))), nil
	}
	if size == 0 {
		return sdk.TextResult(fmt.Sprintf("(%s at %s is empty)", rel, ref)), nil
	}
	text, cut := cutText(string(out.stdout), maxOutput)
	if cut || out.cut {
		lines := strings.Count(text, "\n")
		text = addNote(text, fmt.Sprintf("cut at 100 KiB after %s of a %s file; see later lines with git_blame path: %q ref: %q start: %d", wording.Count(lines, "line"), sizeText(size), rel, ref, lines+1))
	}
	return sdk.TextResult(text), nil
}

// listTree lists a folder at a ref, one entry a line.
func (rp *repo) listTree(ctx context.Context, oid, rel, ref string) (*sdk.Result, error) {
	out, err := rp.git(ctx, run{}, "ls-tree", "-z", oid)
	if err != nil {
		return nil, err
	}
	if !out.ok() {
		return nil, out.failure("git ls-tree")
	}
	var lines []string
	for _, rec := range bytes.Split(out.stdout, []byte{0}) {
		meta, name, ok := strings.Cut(string(rec), "\t")
		if !ok {
			continue
		}
		switch f := strings.Fields(meta); {
		case len(f) > 1 && f[1] == "tree":
			name += "/"
		case len(f) > 1 && f[1] == "commit":
			name += " (submodule)"
		case len(f) > 0 && f[0] == "120000":
			name += " (symlink)"
		}
		lines = append(lines, name)
	}
	text := fmt.Sprintf("%s at %s (%s):\n%s", rel, ref, wording.Count(len(lines), "entry"), strings.Join(lines, "\n"))
	if len(lines) == 0 {
		text = fmt.Sprintf("%s at %s is an empty folder", rel, ref)
	}
	if cut, ok := cutText(text, maxOutput); ok || out.cut {
		text = addNote(cut, "listing cut at 100 KiB; show a sub-folder with path")
	}
	return sdk.TextResult(text), nil
}

func parentDir(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return "."
}
