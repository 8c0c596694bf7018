package git

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
)

type restoreArgs struct {
	repoArg
	Paths  []string `json:"paths" jsonschema:"files or folders, relative to the repository's top level"`
	Source string   `json:"source,omitempty" jsonschema:"commit to restore from; default: the index (the staged content), or HEAD with staged"`
	Staged bool     `json:"staged,omitempty" jsonschema:"unstage instead: restore the index, leaving the work tree as it is"`
}

var restoreSpec = sdk.ToolSpec{
	Name:  "git_restore",
	Title: "Git restore",
	Kind:  sdk.KindWrite,
	// It discards the work tree's changes to the paths.
	Annotations: sdk.Annotations{Destructive: &yes, Idempotent: &yes},
	Description: `Restore files (git restore): discard the work tree's changes to paths, back to the staged content or to source; with staged, unstage them instead and keep the work tree. Lists the files that changed.`,
}

var restoreSchema = schemaFor[restoreArgs](func(p map[string]*jsonschema.Schema) {
	nonEmptyArray(p["paths"])
})

func (s *server) restore(ctx context.Context, rp *repo, args restoreArgs) (*sdk.Result, error) {
	if len(args.Paths) == 0 {
		return nil, sdk.Failf("paths is empty; name the files or folders to restore")
	}
	paths, err := rp.paths(args.Paths)
	if err != nil {
		return nil, err
	}
	cmd := []string{"restore"}
	var source string
	if args.Source != "" {
		if source, err = rp.verify(ctx, "source", args.Source, "commit"); err != nil {
			return nil, err
		}
		cmd = append(cmd, "--source="+source)
	}
	if args.Staged {
		cmd = append(cmd, "--staged")
		out, err := rp.git(ctx, run{}, append(append(cmd, "--"), paths...)...)
		if err != nil {
			return nil, err
		}
		if !out.ok() {
			return nil, out.failure("git restore --staged")
		}
		text := "unstaged; the work tree is as it was"
		if n, ok := rp.stagedCount(ctx); ok {
			text += fmt.Sprintf("\n%s still staged", wording.Count(n, "file"))
		}
		return sdk.TextResult(text), nil
	}
	// The files the restore will write: those whose work-tree content
	// differs from what they are restored to.
	diff := []string{"diff", "--name-only", "-z", "--no-renames", "--no-ext-diff"}
	if source != "" {
		diff = append(diff, source)
	}
	list, err := rp.git(ctx, run{}, append(append(diff, "--"), paths...)...)
	if err != nil {
		return nil, err
	}
	if !list.ok() || list.cut {
		return nil, list.failure("git diff")
	}
	if err := rp.refuseSmudged(ctx, list, "git diff", "restored", "this restore", "restore"); err != nil {
		return nil, err
	}
	snap, err := rp.snapshotOf(list.stdout)
	if err != nil {
		return nil, err
	}
	out, err := rp.git(ctx, run{}, append(append(cmd, "--"), paths...)...)
	if err != nil {
		return nil, err
	}
	if !out.ok() {
		msg := out.message()
		if strings.Contains(msg, "did not match any file") {
			return nil, sdk.Failf("git restore failed, nothing changed:\n%s\ngit_status lists the files git knows", msg)
		}
		return nil, out.failure("git restore")
	}
	res := &sdk.Result{Changes: snap.changes(rp)}
	text := "nothing to restore: the files already match"
	if len(res.Changes) > 0 {
		text = fmt.Sprintf("restored %s", wording.Count(len(res.Changes), "file"))
		for _, c := range res.Changes {
			text += "\n  " + rp.roots.Rel(c.Path)
		}
	}
	res.Content = []sdk.Content{{Text: text}}
	return res, nil
}
