package git

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
)

type addArgs struct {
	repoArg
	Paths []string `json:"paths" jsonschema:"files or folders, relative to the repository's top level; \".\" for all"`
}

var addSpec = sdk.ToolSpec{
	Name:  "git_add",
	Title: "Git add",
	Kind:  sdk.KindWrite,
	// It keeps every change: staging again is a no-op.
	Annotations: sdk.Annotations{Destructive: &no, Idempotent: &yes},
	Description: `Stage changes under each path (git add): new, changed and deleted files; "." stages everything. Gitignored files are refused. Lists what was staged.`,
}

var addSchema = schemaFor[addArgs](func(p map[string]*jsonschema.Schema) {
	nonEmptyArray(p["paths"])
})

func (s *server) add(ctx context.Context, rp *repo, args addArgs) (*sdk.Result, error) {
	if len(args.Paths) == 0 {
		return nil, sdk.Failf("paths is empty; name the files or folders to stage (\".\" for everything)")
	}
	paths, err := rp.paths(args.Paths)
	if err != nil {
		return nil, err
	}
	// git add stages the other paths before it fails on an ignored one;
	// refuse them all first, so that a refusal changes nothing.
	// check-ignore refuses literal pathspecs; a path it cannot read as a
	// plain path fails it (status 128) and is left to git add.
	ign, err := rp.git(ctx, run{patterns: true, stdin: strings.NewReader(strings.Join(paths, "\x00") + "\x00")},
		"check-ignore", "-z", "--stdin")
	if err != nil {
		return nil, err
	}
	if ign.code == 0 {
		return nil, sdk.Failf("refused ignored paths (nothing was staged):\n  %s\ngit_add does not add files matched by .gitignore; change .gitignore if they should be tracked",
			strings.Join(strings.Split(strings.TrimSuffix(string(ign.stdout), "\x00"), "\x00"), "\n  "))
	}
	if err := rp.checkFilters(ctx, paths, false); err != nil {
		return nil, err
	}
	out, err := rp.git(ctx, run{}, append([]string{"add", "--verbose", "--"}, paths...)...)
	if err != nil {
		return nil, err
	}
	if !out.ok() {
		return nil, out.failure("git add")
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out.stdout)), "\n") {
		switch {
		case strings.HasPrefix(l, "add "):
			lines = append(lines, "added: "+unquoteVerbose(l[4:]))
		case strings.HasPrefix(l, "remove "):
			lines = append(lines, "removed: "+unquoteVerbose(l[7:]))
		}
	}
	text := "nothing new to stage: the paths have no changes that are not staged already"
	if len(lines) > 0 {
		text = fmt.Sprintf("staged %s:\n  %s", wording.Count(len(lines), "path"), strings.Join(lines, "\n  "))
	}
	if n, ok := rp.stagedCount(ctx); ok {
		text += fmt.Sprintf("\n%s staged in all; commit with git_commit", wording.Count(n, "file"))
	}
	if cut, ok := cutText(text, maxOutput); ok {
		text = addNote(cut, "list cut at 100 KiB; git_status shows the staged files")
	}
	return sdk.TextResult(text), nil
}

// unquoteVerbose strips the quotes git add --verbose puts around a path.
func unquoteVerbose(s string) string {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return s[1 : len(s)-1]
	}
	return s
}

// stagedCount counts the files the next commit would change.
func (rp *repo) stagedCount(ctx context.Context) (int, bool) {
	out, err := rp.git(ctx, run{}, "diff", "--cached", "--name-only", "-z", "--no-renames")
	if err != nil || out.code != 0 || out.cut {
		return 0, false
	}
	return bytes.Count(out.stdout, []byte{0}), true
}
